extension LRUStorage {
    /// Evicts least recently used entries until the total cost is at most `cost`.
    @usableFromInline
    mutating func trim(toCost cost: Int, reason: MemoryCacheEvictionReason) {
        while tail >= 0, totalCost > max(0, cost) { remove(slot: Int(tail), reason: reason) }
    }

    /// Evicts least recently used entries until at most `count` remain.
    @usableFromInline
    mutating func trim(toCount count: Int, reason: MemoryCacheEvictionReason) {
        while tail >= 0, index.count > max(0, count) { remove(slot: Int(tail), reason: reason) }
    }

    /// Evicts every entry whose expiry is at or before `now`; O(n) over the slots.
    @usableFromInline
    mutating func removeExpired(now: Double) {
        guard expiringCount > 0 else { return }
        for i in nodes.indices where nodes[i].key != nil && nodes[i].expiry <= now {
            remove(slot: i, reason: .expired)
        }
    }

    /// Drops every entry and releases the slot array. `reason == nil` counts removals.
    @usableFromInline
    mutating func removeAll(reason: MemoryCacheEvictionReason?) {
        let dropped = index.count
        index = [:]
        nodes = []
        head = -1; tail = -1; free = -1
        totalCost = 0
        expiringCount = 0
        for _ in 0..<dropped { tally(reason) }
    }

    /// A consistent snapshot of the counters.
    @usableFromInline
    var statistics: MemoryCacheStatistics {
        var stats = MemoryCacheStatistics()
        stats.hits = hits
        stats.misses = misses
        stats.insertions = insertions
        stats.replacements = replacements
        stats.rejections = rejections
        stats.removals = removals
        stats.evictionCounts = [evictions.0, evictions.1, evictions.2, evictions.3, evictions.4]
        stats.count = index.count
        stats.totalCost = totalCost
        return stats
    }

    /// Walks the recency list and checks every structural invariant; for tests. Returns a
    /// description of the first violation, or `nil` when all hold.
    @usableFromInline
    func invariantViolation() -> String? {
        var seen = 0, cost = 0, expiring = 0
        var previous: Int32 = -1
        var slot = head
        while slot >= 0 {
            let node = nodes[Int(slot)]
            guard let key = node.key, node.value != nil else { return "free slot \(slot) in the list" }
            guard node.prev == previous else { return "slot \(slot) has a wrong back link" }
            guard index[key] == slot else { return "index disagrees for slot \(slot)" }
            seen += 1; cost += node.cost
            if node.expiry != .infinity { expiring += 1 }
            guard seen <= nodes.count else { return "cycle in the list" }
            previous = slot
            slot = node.next
        }
        if previous != tail { return "tail is \(tail), list ends at \(previous)" }
        if seen != index.count { return "list has \(seen) entries, index \(index.count)" }
        if cost != totalCost { return "cost sum \(cost) != totalCost \(totalCost)" }
        if expiring != expiringCount { return "expiring \(expiring) != \(expiringCount)" }
        var freeSlots = 0
        slot = free
        while slot >= 0 {
            guard nodes[Int(slot)].key == nil else { return "used slot \(slot) in the free list" }
            freeSlots += 1
            guard freeSlots <= nodes.count else { return "cycle in the free list" }
            slot = nodes[Int(slot)].next
        }
        if freeSlots + seen != nodes.count { return "\(nodes.count - freeSlots - seen) slots leaked" }
        return nil
    }
}
