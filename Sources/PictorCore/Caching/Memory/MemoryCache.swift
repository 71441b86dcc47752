import Synchronization

/// A thread-safe, in-memory LRU cache with cost, count and age limits.
///
/// Every entry has a cost (bytes, for images) and optionally a time to live. When a store takes
/// the cache over ``costLimit`` or ``countLimit``, least recently used entries are evicted until
/// both hold again; a lookup refreshes the entry's recency. Expired entries are never returned.
///
/// ```swift
/// let cache = MemoryCache<String, Thumbnail>(costLimit: 64 << 20, countLimit: 10_000)
/// cache.set(thumbnail, for: url, cost: thumbnail.byteCount)
/// let hit = cache.value(for: url)
/// ```
///
/// The entries sit in one array of slots linked into a recency list by index, with a hash index
/// from key to slot, all behind one `Mutex`; no per-entry object is allocated.
///
/// - Complexity: ``value(for:)``, ``set(_:for:cost:ttl:)`` and ``removeValue(for:)`` are O(1)
///   (plus the evictions a store triggers, each O(1)); ``removeExpired()`` is O(n).
/// - Important: All members may be called from any thread or task. Values are returned while the
///   lock is held only long enough to copy them out.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline let state: Mutex<LRUStorage<Key, Value>>
    @usableFromInline let clock: any CacheClock

    /// Creates an empty cache.
    ///
    /// - Parameters:
    ///   - costLimit: Largest total cost kept (bytes for images); `Int.max` (no limit) by default.
    ///     Negative values count as `0`.
    ///   - countLimit: Largest number of entries kept; `Int.max` by default.
    ///   - entryCostLimit: An entry costing more than this fraction of `costLimit` is not stored;
    ///     `1.0` (any entry that fits) by default.
    ///   - ttl: Default time to live of an entry, in seconds; `nil` (entries never expire) by
    ///     default. A store can override it.
    ///   - clock: The time source for expiry; ``MonotonicCacheClock`` by default.
    public init(
        costLimit: Int = .max, countLimit: Int = .max, entryCostLimit: Double = 1.0,
        ttl: Double? = nil, clock: any CacheClock = MonotonicCacheClock()
    ) {
        state = Mutex(LRUStorage(costLimit: costLimit, countLimit: countLimit,
                                 entryCostLimit: entryCostLimit, ttl: ttl))
        self.clock = clock
    }

    /// The value stored for `key`, or `nil` when there is none or it has expired (an expired
    /// entry is evicted on the spot). A hit makes the entry the most recently used.
    ///
    /// - Complexity: O(1).
    @inlinable
    public func value(for key: Key) -> Value? {
        let key = LRUKey(key)   // hash outside the lock
        return state.withLock { $0.value(for: key, clock: clock) }
    }

    /// Stores `value` for `key` as the most recently used entry, replacing any older value, then
    /// evicts least recently used entries until the cost and count limits hold.
    ///
    /// The value is not stored (and an older value for `key` is removed) when `cost` exceeds
    /// ``entryCostLimit`` × ``costLimit``, when ``countLimit`` is `0`, or when the TTL is not
    /// positive; ``MemoryCacheStatistics/rejections`` counts those.
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - key: Its key.
    ///   - cost: What the entry weighs against ``costLimit`` (bytes for images); `0` by default.
    ///     Negative values count as `0`.
    ///   - ttl: This entry's time to live in seconds, overriding ``ttl``; `nil` uses ``ttl``.
    /// - Complexity: O(1) plus O(1) per evicted entry.
    @inlinable
    public func set(_ value: Value, for key: Key, cost: Int = 0, ttl: Double? = nil) {
        let key = LRUKey(key)
        state.withLock { $0.set(value, for: key, cost: cost, ttl: ttl, clock: clock) }
    }

    /// Removes the entry for `key` and returns its value (even if expired), or `nil` if absent.
    ///
    /// - Complexity: O(1).
    @inlinable
    @discardableResult
    public func removeValue(for key: Key) -> Value? {
        let key = LRUKey(key)
        return state.withLock { $0.removeValue(for: key) }
    }

    /// Removes every entry (counted as removals, not evictions) and frees the slot storage.
    public func removeAll() {
        state.withLock { $0.removeAll(reason: nil) }
    }

    /// Whether an unexpired entry exists for `key`; does not refresh recency or count a lookup.
    public func contains(_ key: Key) -> Bool {
        let key = LRUKey(key)
        return state.withLock { storage in
            guard let slot = storage.index[key] else { return false }
            let expiry = storage.nodes[Int(slot)].expiry
            return expiry == .infinity || expiry > clock.now()
        }
    }
}
