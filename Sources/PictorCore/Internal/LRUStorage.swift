/// The unsynchronized state of a ``MemoryCache``: a hash index into an array of slots that form
/// a doubly linked recency list (most recently used at `head`), plus limits and counters.
///
/// Every operation is O(1) except ``removeExpired(now:)`` (O(n)) and trims (O(evicted)). Freed
/// slots are chained into a free list and reused, so after warm-up a set with eviction allocates
/// nothing but the dictionary entry. The slot array keeps its peak size until ``removeAll()``.
///
/// - Important: Not thread-safe; ``MemoryCache`` guards it with a `Mutex`.
@usableFromInline
struct LRUStorage<Key: Hashable, Value> {
    @usableFromInline var index: [LRUKey<Key>: Int32] = [:]
    @usableFromInline var nodes: [LRUNode<LRUKey<Key>, Value>] = []
    /// Most recently used slot, `-1` when empty.
    @usableFromInline var head: Int32 = -1
    /// Least recently used slot, `-1` when empty.
    @usableFromInline var tail: Int32 = -1
    /// First free slot, `-1` when none.
    @usableFromInline var free: Int32 = -1
    @usableFromInline var totalCost = 0
    /// Entries whose expiry is finite; lookups read the clock only when this is non-zero.
    @usableFromInline var expiringCount = 0

    @usableFromInline var costLimit: Int
    @usableFromInline var countLimit: Int
    @usableFromInline var entryCostLimit: Double
    @usableFromInline var ttl: Double?

    @usableFromInline var hits = 0
    @usableFromInline var misses = 0
    @usableFromInline var insertions = 0
    @usableFromInline var replacements = 0
    @usableFromInline var rejections = 0
    @usableFromInline var removals = 0
    @usableFromInline var evictions: (Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0)

    @usableFromInline
    init(costLimit: Int, countLimit: Int, entryCostLimit: Double, ttl: Double?) {
        self.costLimit = max(0, costLimit)
        self.countLimit = max(0, countLimit)
        self.entryCostLimit = entryCostLimit
        self.ttl = ttl
    }

    /// Number of stored entries.
    @inlinable var count: Int { index.count }

    // MARK: - Lookup and store

    /// The value for `key`, moved to the head; `nil` (and a miss) when absent or expired.
    @inlinable
    mutating func value(for key: LRUKey<Key>, clock: any CacheClock) -> Value? {
        guard let slot = index[key] else {
            misses &+= 1
            return nil
        }
        let i = Int(slot)
        if nodes[i].expiry != .infinity, nodes[i].expiry <= clock.now() {
            remove(slot: i, reason: .expired)
            misses &+= 1
            return nil
        }
        moveToHead(slot)
        hits &+= 1
        return nodes[i].value
    }

    /// Stores `value` at the head, then evicts from the tail until every limit holds.
    ///
    /// An entry costing more than `entryCostLimit × costLimit` (or any entry when a limit is `0`,
    /// or when the TTL is not positive) is refused, and an older value for `key` is removed.
    @inlinable
    mutating func set(_ value: Value, for key: LRUKey<Key>, cost: Int, ttl entryTTL: Double?, clock: any CacheClock) {
        let cost = max(0, cost)
        let lifetime = entryTTL ?? ttl
        if countLimit == 0 || Double(cost) > Double(costLimit) * entryCostLimit
            || (lifetime.map { !($0 > 0) } ?? false) {
            rejections &+= 1
            if let slot = index[key] { remove(slot: Int(slot), reason: nil) }
            return
        }
        let expiry = lifetime.map { clock.now() + $0 } ?? .infinity
        let fresh: Int32 = free >= 0 ? free : Int32(nodes.count)
        var existing: Int32 = -1
        Self.claim(&index[key, default: -1], fresh: fresh, existing: &existing)
        if existing >= 0 {
            let i = Int(existing)
            totalCost += cost - nodes[i].cost
            if nodes[i].expiry != .infinity { expiringCount -= 1 }
            nodes[i].value = value
            nodes[i].cost = cost
            nodes[i].expiry = expiry
            moveToHead(existing)
            replacements &+= 1
        } else {
            let node = LRUNode(key: key, value: value, cost: cost, expiry: expiry)
            if free >= 0 {
                free = nodes[Int(fresh)].next
                nodes[Int(fresh)] = node
            } else {
                nodes.append(node)
            }
            pushHead(fresh)
            totalCost += cost
            insertions &+= 1
        }
        if expiry != .infinity { expiringCount += 1 }
        evictToLimits()
    }

    /// Writes `fresh` into a newly created index entry, or reports the slot already there.
    @inlinable
    static func claim(_ entry: inout Int32, fresh: Int32, existing: inout Int32) {
        if entry < 0 { entry = fresh } else { existing = entry }
    }

    /// Removes the entry for `key`; returns its value if there was one.
    @inlinable
    @discardableResult
    mutating func removeValue(for key: LRUKey<Key>) -> Value? {
        guard let slot = index[key] else { return nil }
        let value = nodes[Int(slot)].value
        remove(slot: Int(slot), reason: nil)
        return value
    }

    /// Evicts least recently used entries while the cost or count limit is exceeded.
    @inlinable
    mutating func evictToLimits() {
        while tail >= 0 {
            if index.count > countLimit {
                remove(slot: Int(tail), reason: .countLimit)
            } else if totalCost > costLimit {
                remove(slot: Int(tail), reason: .costLimit)
            } else {
                return
            }
        }
    }

    // MARK: - Slots and links

    /// Unlinks slot `i`, drops its index entry, key and value, and chains it into the free list.
    /// `reason == nil` counts a removal by key, otherwise an eviction for `reason`.
    @inlinable
    mutating func remove(slot i: Int, reason: MemoryCacheEvictionReason?) {
        unlink(Int32(i))
        if let key = nodes[i].key { index.removeValue(forKey: key) }
        totalCost -= nodes[i].cost
        if nodes[i].expiry != .infinity { expiringCount -= 1 }
        nodes[i].key = nil
        nodes[i].value = nil
        nodes[i].cost = 0
        nodes[i].expiry = .infinity
        nodes[i].prev = -1
        nodes[i].next = free
        free = Int32(i)
        tally(reason)
    }

    @inlinable
    mutating func tally(_ reason: MemoryCacheEvictionReason?) {
        switch reason {
        case nil: removals &+= 1
        case .costLimit?: evictions.0 &+= 1
        case .countLimit?: evictions.1 &+= 1
        case .expired?: evictions.2 &+= 1
        case .trimmed?: evictions.3 &+= 1
        case .memoryPressure?: evictions.4 &+= 1
        }
    }

    @inlinable
    mutating func moveToHead(_ slot: Int32) {
        guard slot != head else { return }
        unlink(slot)
        pushHead(slot)
    }

    @inlinable
    mutating func pushHead(_ slot: Int32) {
        let i = Int(slot)
        nodes[i].prev = -1
        nodes[i].next = head
        if head >= 0 { nodes[Int(head)].prev = slot } else { tail = slot }
        head = slot
    }

    @inlinable
    mutating func unlink(_ slot: Int32) {
        let i = Int(slot)
        let prev = nodes[i].prev, next = nodes[i].next
        if prev >= 0 { nodes[Int(prev)].next = next } else { head = next }
        if next >= 0 { nodes[Int(next)].prev = prev } else { tail = prev }
    }
}
