import Foundation

/// Counters of one pipeline's use of its shared tier since it was created (part of
/// ``ImagePipeline/Statistics``).
///
/// Every read of an entry ends in exactly one of ``hits``, ``misses``, ``errors``, ``rejections``
/// or ``skips``;
/// a load may read more than once (after taking a lease, after a wait), so these count reads,
/// not images (``ImagePipeline/Statistics/sharedHits`` counts images served by the tier).
public struct SharedCacheStatistics: Sendable, Hashable, Codable {
    /// Reads that found a valid entry (fresh or stale; including after waiting for another
    /// process).
    public var hits = 0
    /// Reads that found nothing usable (absent, damaged, sealed with another key).
    public var misses = 0
    /// Operations (of any kind) that failed: unreachable, timed out, full, garbled reply.
    public var errors = 0
    /// Operations not attempted because the tier was cooling down after repeated failures.
    public var skips = 0
    /// Entries written.
    public var stores = 0
    /// Entries not written because they exceed ``SharedCachePolicy/maximumEntrySize``.
    public var oversized = 0
    /// Download leases taken by this process: it downloaded (or tried to) for the fleet.
    public var leasesTaken = 0
    /// Times this process waited for another's download.
    public var waits = 0
    /// Waits that ended without the other's result (it failed, stored nothing, or the wait
    /// bound passed), after which this process downloaded itself.
    public var fallbacks = 0

    /// Operations the tier answered by refusing them (full, a value of another type under the
    /// name); the tier stays in use.
    public var rejections = 0

    /// Downloads not shared because the response says `Cache-Control: private` (RFC 9111
    /// §5.2.2.7: for one user's cache only).
    public var notSharedPrivate = 0
    /// Downloads not shared because they answer a request with credentials (`Authorization`,
    /// or a user name in the URL) and the response does not say `public`, `s-maxage` or
    /// `must-revalidate` (RFC 9111 §3.5).
    public var notSharedAuthorized = 0

    /// Creates zeroed counters.
    public init() {}
}

extension SharedCacheStatistics {
    /// Every counter with the name the fleet's Redis hash stores it under: the one list that
    /// adding, subtracting and the fleet report go through.
    package static var counters: [(name: String, counter: WritableKeyPath<SharedCacheStatistics, Int>)] {
        [("hits", \.hits), ("misses", \.misses), ("errors", \.errors), ("rejections", \.rejections), ("skips", \.skips),
         ("stores", \.stores), ("oversized", \.oversized), ("leases", \.leasesTaken), ("waits", \.waits),
         ("fallbacks", \.fallbacks), ("not-shared-private", \.notSharedPrivate),
         ("not-shared-authorized", \.notSharedAuthorized)]
    }

    /// Each counter of `self` plus the same counter of `other`.
    package func adding(_ other: SharedCacheStatistics) -> SharedCacheStatistics {
        var sum = self
        for field in Self.counters { sum[keyPath: field.counter] += other[keyPath: field.counter] }
        return sum
    }

    /// Each counter of `self` less the same counter of `other`.
    func subtracting(_ other: SharedCacheStatistics) -> SharedCacheStatistics {
        var difference = self
        for field in Self.counters { difference[keyPath: field.counter] -= other[keyPath: field.counter] }
        return difference
    }
}
