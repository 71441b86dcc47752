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
    /// Each counter of `self` less the same counter of `other`.
    func subtracting(_ other: SharedCacheStatistics) -> SharedCacheStatistics {
        var d = self
        d.hits -= other.hits
        d.misses -= other.misses
        d.errors -= other.errors
        d.skips -= other.skips
        d.stores -= other.stores
        d.oversized -= other.oversized
        d.leasesTaken -= other.leasesTaken
        d.waits -= other.waits
        d.fallbacks -= other.fallbacks
        d.rejections -= other.rejections
        d.notSharedPrivate -= other.notSharedPrivate
        d.notSharedAuthorized -= other.notSharedAuthorized
        return d
    }
}
