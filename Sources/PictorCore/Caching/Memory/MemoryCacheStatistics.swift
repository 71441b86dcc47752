/// Why an entry left a ``MemoryCache`` without being removed by key.
public enum MemoryCacheEvictionReason: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The total cost went over ``MemoryCache/costLimit``; the least recently used entry went.
    case costLimit = 0
    /// The entry count went over ``MemoryCache/countLimit``; the least recently used entry went.
    case countLimit = 1
    /// The entry's time to live had passed (found on lookup or by ``MemoryCache/removeExpired()``).
    case expired = 2
    /// An explicit ``MemoryCache/trim(toCost:)`` or ``MemoryCache/trim(toCount:)``.
    case trimmed = 3
    /// ``MemoryCache/handleMemoryPressure(_:)``.
    case memoryPressure = 4

    /// A one-line, human-readable description (used in logs and CLI messages).
    public var description: String {
        switch self {
        case .costLimit: "cost limit"
        case .countLimit: "count limit"
        case .expired: "expired"
        case .trimmed: "trimmed"
        case .memoryPressure: "memory pressure"
        }
    }
}

/// A snapshot of a ``MemoryCache``'s counters, taken under its lock (so the figures agree with
/// each other). Counters start at zero when the cache is created and are never reset.
public struct MemoryCacheStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Lookups that returned a value.
    public var hits: Int
    /// Lookups that returned `nil`, including those that found an expired entry.
    public var misses: Int
    /// Stores of a key that was not in the cache.
    public var insertions: Int
    /// Stores that replaced the value of a key already in the cache.
    public var replacements: Int
    /// Stores refused because the entry cost more than the entry cost limit (or a limit is `0`).
    public var rejections: Int
    /// Entries removed by key with ``MemoryCache/removeValue(for:)`` or by ``MemoryCache/removeAll()``.
    public var removals: Int
    /// Evictions counted by reason, indexed by ``MemoryCacheEvictionReason/rawValue``.
    var evictionCounts: [Int]
    /// Entries currently stored.
    public var count: Int
    /// Sum of the costs of the entries currently stored (bytes for images).
    public var totalCost: Int

    /// Creates an all-zero snapshot.
    public init() {
        hits = 0; misses = 0; insertions = 0; replacements = 0; rejections = 0; removals = 0
        evictionCounts = Array(repeating: 0, count: MemoryCacheEvictionReason.allCases.count)
        count = 0; totalCost = 0
    }

    /// Number of entries evicted for `reason`.
    public func evictions(_ reason: MemoryCacheEvictionReason) -> Int { evictionCounts[reason.rawValue] }

    /// Number of entries evicted for any reason.
    public var totalEvictions: Int { evictionCounts.reduce(0, +) }

    /// Hits divided by lookups, `0` before the first lookup.
    public var hitRate: Double {
        let lookups = hits + misses
        return lookups == 0 ? 0 : Double(hits) / Double(lookups)
    }

    /// A one-line, human-readable description (used in logs and CLI messages).
    public var description: String {
        let evicted = MemoryCacheEvictionReason.allCases
            .map { "\($0): \(evictions($0))" }.joined(separator: ", ")
        return "\(count) entries, cost \(totalCost); hits \(hits), misses \(misses), "
            + "insertions \(insertions), replacements \(replacements), rejections \(rejections), "
            + "removals \(removals); evictions [\(evicted)]"
    }
}
