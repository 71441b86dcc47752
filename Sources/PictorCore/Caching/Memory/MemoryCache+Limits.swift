extension MemoryCache {
    /// Largest total cost kept (bytes for images). Lowering it evicts least recently used
    /// entries at once (counted as ``MemoryCacheEvictionReason/costLimit``).
    public var costLimit: Int {
        get { state.withLock { $0.costLimit } }
        set { state.withLock { $0.costLimit = max(0, newValue); $0.evictToLimits() } }
    }

    /// Largest number of entries kept. Lowering it evicts least recently used entries at once
    /// (counted as ``MemoryCacheEvictionReason/countLimit``).
    public var countLimit: Int {
        get { state.withLock { $0.countLimit } }
        set { state.withLock { $0.countLimit = max(0, newValue); $0.evictToLimits() } }
    }

    /// Fraction of ``costLimit`` (`0...1`, or more to allow nothing extra) above which a single
    /// entry is refused. Applies to later stores only.
    public var entryCostLimit: Double {
        get { state.withLock { $0.entryCostLimit } }
        set { state.withLock { $0.entryCostLimit = newValue } }
    }

    /// Default time to live of new entries, in seconds; `nil` for no expiry. Applies to later
    /// stores only.
    public var ttl: Double? {
        get { state.withLock { $0.ttl } }
        set { state.withLock { $0.ttl = newValue } }
    }

    /// Number of entries stored (expired ones included until they are found or removed).
    public var count: Int { state.withLock { $0.count } }

    /// Sum of the costs of the stored entries (bytes for images).
    public var totalCost: Int { state.withLock { $0.totalCost } }

    /// A consistent snapshot of the counters and current size.
    public var statistics: MemoryCacheStatistics { state.withLock { $0.statistics } }

    /// Evicts least recently used entries until the total cost is at most `cost`
    /// (counted as ``MemoryCacheEvictionReason/trimmed``).
    ///
    /// - Complexity: O(evicted entries).
    public func trim(toCost cost: Int) {
        state.withLock { $0.trim(toCost: cost, reason: .trimmed) }
    }

    /// Evicts least recently used entries until at most `count` remain
    /// (counted as ``MemoryCacheEvictionReason/trimmed``).
    ///
    /// - Complexity: O(evicted entries).
    public func trim(toCount count: Int) {
        state.withLock { $0.trim(toCount: count, reason: .trimmed) }
    }

    /// Evicts every entry whose time to live has passed.
    ///
    /// - Complexity: O(n) in the number of slots; O(1) when no entry has a TTL.
    public func removeExpired() {
        state.withLock { $0.removeExpired(now: clock.now()) }
    }

    /// Frees memory in answer to a pressure signal the application receives (Linux itself sends
    /// none). ``MemoryPressureLevel/moderate`` drops expired entries, then trims to half of the
    /// current cost and count; ``MemoryPressureLevel/critical`` drops everything. Counted as
    /// ``MemoryCacheEvictionReason/memoryPressure`` (expired ones as `expired`).
    public func handleMemoryPressure(_ level: MemoryPressureLevel) {
        state.withLock { storage in
            switch level {
            case .moderate:
                storage.removeExpired(now: clock.now())
                let cost = storage.totalCost / 2, count = storage.count / 2
                storage.trim(toCost: cost, reason: .memoryPressure)
                storage.trim(toCount: count, reason: .memoryPressure)
            case .critical:
                storage.removeAll(reason: .memoryPressure)
            }
        }
    }

    /// The keys from most to least recently used, without touching recency; O(n), for
    /// diagnostics and tests.
    public var keysByRecency: [Key] {
        state.withLock { storage in
            var keys: [Key] = []
            keys.reserveCapacity(storage.count)
            var slot = storage.head
            while slot >= 0 {
                if let key = storage.nodes[Int(slot)].key { keys.append(key.key) }
                slot = storage.nodes[Int(slot)].next
            }
            return keys
        }
    }

    /// Checks the internal structure (links, index, cost and count sums); returns a description
    /// of the first broken invariant, or `nil` when the cache is consistent. O(n); for tests.
    func checkInvariants() -> String? {
        state.withLock { $0.invariantViolation() }
    }
}
