import Foundation

/// A cache of original image bytes shared by many processes and hosts (a fleet tier), between
/// each process's disk cache and the origin: ``ImagePipeline`` reads it after a disk miss, writes
/// it after a validated download, and uses its leases so that one process downloads a URL while
/// the others wait for the result. `PictorRedis` implements it on Redis.
///
/// An implementation stores entries under names derived from the cache key (never the key in
/// clear when it can help it), binds each entry to its key so that a value found under another
/// name is never returned, and reports a failure of the tier itself (connection, timeout,
/// unreadable reply) by throwing. The pipeline never lets a throw fail a load: it counts it,
/// treats it as a miss, and after repeated failures skips the tier for a while
/// (``SharedCachePolicy/failureThreshold``, ``SharedCachePolicy/coolDown``).
public protocol SharedDataCache: Sendable {
    /// The entry stored for `key`: `nil` when there is none, or when what is stored is not a
    /// valid entry for this key (damaged, sealed with another key, stored under another key).
    ///
    /// - Parameter key: the cache key (the pipeline's data key).
    /// - Throws: when the tier could not answer.
    func entry(for key: String) async throws -> DataCacheEntry?

    /// Stores `entry` for `key`, replacing any previous one; the tier drops it after
    /// `timeToLive` (or earlier, under its own eviction).
    ///
    /// - Parameters:
    ///   - entry: the bytes and their metadata.
    ///   - key: the cache key.
    ///   - timeToLive: how long the tier keeps it at most.
    /// - Throws: when the tier could not store it (full, unreachable…).
    func store(_ entry: DataCacheEntry, for key: String, timeToLive: Duration) async throws

    /// Removes the entry for `key` (its bytes failed to decode).
    ///
    /// - Parameter key: the cache key.
    /// - Throws: when the tier could not answer.
    func removeEntry(for key: String) async throws

    /// Takes the download lease of `key` for `duration`, unless another process holds it.
    ///
    /// - Parameters:
    ///   - key: the cache key whose download is leased.
    ///   - duration: how long the lease holds if it is never released (a crashed holder).
    /// - Returns: the lease when taken (release it with ``releaseLease(_:)``), `nil` when held
    ///   elsewhere.
    /// - Throws: when the tier could not answer.
    func acquireLease(for key: String, duration: Duration) async throws -> SharedCacheLease?

    /// Whether some process holds the download lease of `key`.
    ///
    /// - Parameter key: the cache key.
    /// - Throws: when the tier could not answer.
    func isLeased(_ key: String) async throws -> Bool

    /// Releases a lease taken by ``acquireLease(for:duration:)``; a lease that expired and was
    /// taken by another process meanwhile is left alone.
    ///
    /// - Parameter lease: a lease returned by ``acquireLease(for:duration:)``.
    /// - Throws: when the tier could not answer.
    func releaseLease(_ lease: SharedCacheLease) async throws

    /// Adds `statistics`, one process's counters since its previous call, to the fleet's (what
    /// `pictor cache stats --shared-cache URL` shows). The pipeline calls it itself, at most once
    /// per ``SharedCachePolicy/statisticsInterval``, and when asked to by
    /// ``ImagePipeline/recordSharedCacheStatistics()``. The default implementation keeps
    /// nothing.
    ///
    /// - Parameter statistics: the counters to add (each field a count, never negative).
    /// - Throws: when the tier could not store them; the pipeline sends them again with its
    ///   next call.
    func record(_ statistics: SharedCacheStatistics) async throws

    /// Whether the tier answers now, within `timeout` (a health endpoint calls it; the
    /// pipeline does not). It returns by `timeout` however the tier behaves. The default
    /// implementation says ``TierHealth/usable`` without asking.
    ///
    /// - Parameter timeout: the longest wait for an answer.
    /// - Returns: ``TierHealth/usable``, or ``TierHealth/unusable(reason:)`` with why not (no
    ///   answer in time, connection refused, an error reply).
    func health(timeout: Duration) async -> TierHealth
}

extension SharedDataCache {
    /// ``TierHealth/usable``: a tier with nothing to ask.
    public func health(timeout: Duration) async -> TierHealth { .usable }

    /// Keeps nothing: a tier with no fleet-wide counters.
    public func record(_ statistics: SharedCacheStatistics) async throws {}
}

/// What a ``SharedDataCache`` throws when the tier answered but refused one operation: it is
/// full (Redis `OOM`), or the name holds something else. The tier is healthy, so the pipeline
/// counts the refusal and goes on using it (reads still answer when writes are refused); any
/// other error counts towards skipping the tier.
///
/// A struct rather than an enum, so that a new kind of refusal is not a breaking change: make
/// one with ``rejected(_:)`` and read the tier's words from ``reason``.
public struct SharedDataCacheError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The failure and its details; private so that a new kind is not a breaking change.
    private enum Code: Sendable, Equatable {
        case rejected(String)
    }

    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// The operation was refused, with the tier's reason (e.g. Redis' `OOM command not
    /// allowed when used memory > 'maxmemory'`).
    public static func rejected(_ reason: String) -> SharedDataCacheError { .init(.rejected(reason)) }

    /// The tier's reason for the refusal.
    public var reason: String {
        switch code {
        case .rejected(let reason): reason
        }
    }

    /// The tier's reason.
    public var description: String {
        switch code {
        case .rejected(let reason): "refused: \(reason)"
        }
    }

    /// The same text as ``description``, so that `localizedDescription` logs it.
    public var errorDescription: String? { description }

    /// Whether `value` is this error: lets `catch SharedDataCacheError.rejected("full")` match an error thrown as
    /// `any Error`, as it did when the type was an enum.
    public static func ~= (pattern: SharedDataCacheError, value: any Swift.Error) -> Bool { (value as? SharedDataCacheError) == pattern }
}

/// A download lease held on a ``SharedDataCache`` entry: the cache key and the holder's random
/// token (so that only the holder releases it).
public struct SharedCacheLease: Sendable, Hashable {
    /// The cache key the lease is for.
    public let key: String
    /// A random value unique to this holder.
    public let token: String

    /// Creates a lease value; implementations of ``SharedDataCache`` make these.
    public init(key: String, token: String) {
        self.key = key
        self.token = token
    }
}
