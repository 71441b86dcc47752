import Foundation
import PictorCore
import Synchronization

/// A ``/PictorCore/SharedDataCache`` fake: a dictionary of entries and leases shared by every pipeline given
/// the same instance (as processes share one Redis), with counted operations and an outage
/// switch.
///
/// ```swift
/// let fleet = InMemorySharedCache()
/// let a = ImagePipeline(configuration: base) { $0.sharedCache = fleet }
/// let b = ImagePipeline(configuration: base) { $0.sharedCache = fleet }
/// fleet.failure = URLError(.timedOut)   // every operation now throws
/// ```
public final class InMemorySharedCache: SharedDataCache, Sendable {
    /// The operations counted by ``count(_:)``.
    public enum Operation: Sendable, Hashable {
        /// ``entry(for:)``.
        case read
        /// ``store(_:for:timeToLive:)``.
        case store
        /// ``removeEntry(for:)``.
        case remove
        /// ``acquireLease(for:duration:)``.
        case acquire
        /// ``isLeased(_:)``.
        case isLeased
        /// ``releaseLease(_:)``.
        case release
        /// ``record(_:)``.
        case record
    }

    private struct State {
        var entries: [String: DataCacheEntry] = [:]
        var timesToLive: [String: Duration] = [:]
        var leases: [String: (token: String, expires: ContinuousClock.Instant)] = [:]
        var counts: [Operation: Int] = [:]
        var failure: (any Error)?
        var fleet = SharedCacheStatistics()
    }
    private let state = Mutex(State())

    /// Creates an empty tier.
    public init() {}

    /// When set, every operation throws it (the tier is down); `nil` by default.
    public var failure: (any Error)? {
        get { state.withLock { $0.failure } }
        set { state.withLock { $0.failure = newValue } }
    }

    /// How many times `operation` was called (failed calls included).
    public func count(_ operation: Operation) -> Int { state.withLock { $0.counts[operation] ?? 0 } }

    /// The stored entry for `key`, without counting a read.
    public func storedEntry(for key: String) -> DataCacheEntry? { state.withLock { $0.entries[key] } }

    /// The time to live `key` was last stored with.
    public func timeToLive(for key: String) -> Duration? { state.withLock { $0.timesToLive[key] } }

    /// Puts an entry in place, as another process would.
    public func put(_ entry: DataCacheEntry, for key: String) { state.withLock { $0.entries[key] = entry } }

    /// Takes `key`'s lease for `duration` as another process would.
    public func holdLease(for key: String, duration: Duration = .seconds(10)) {
        state.withLock { $0.leases[key] = ("elsewhere", .now + duration) }
    }

    /// Drops a lease taken with ``holdLease(for:duration:)``.
    public func dropLease(for key: String) { state.withLock { $0.leases[key] = nil } }

    /// The stored entry for `key`; counted as a ``Operation/read``. Throws ``failure`` when set.
    public func entry(for key: String) async throws -> DataCacheEntry? {
        try begin(.read)
        return state.withLock { $0.entries[key] }
    }

    /// Stores `entry` and records `timeToLive` (not enforced); counted as a ``Operation/store``.
    /// Throws ``failure`` when set.
    public func store(_ entry: DataCacheEntry, for key: String, timeToLive: Duration) async throws {
        try begin(.store)
        state.withLock {
            $0.entries[key] = entry
            $0.timesToLive[key] = timeToLive
        }
    }

    /// Removes the entry for `key`; counted as a ``Operation/remove``. Throws ``failure`` when set.
    public func removeEntry(for key: String) async throws {
        try begin(.remove)
        state.withLock { _ = $0.entries.removeValue(forKey: key) }
    }

    /// Takes the lease unless an unexpired one is held (`nil` then); counted as an
    /// ``Operation/acquire``. Throws ``failure`` when set.
    public func acquireLease(for key: String, duration: Duration) async throws -> SharedCacheLease? {
        try begin(.acquire)
        return state.withLock { s in
            if let held = s.leases[key], held.expires > .now { return nil }
            let token = UUID().uuidString
            s.leases[key] = (token, .now + duration)
            return SharedCacheLease(key: key, token: token)
        }
    }

    /// Whether an unexpired lease is held for `key`; counted as ``Operation/isLeased``. Throws
    /// ``failure`` when set.
    public func isLeased(_ key: String) async throws -> Bool {
        try begin(.isLeased)
        return state.withLock { s in s.leases[key].map { $0.expires > .now } ?? false }
    }

    /// The fleet's counters: the sum of every ``record(_:)``.
    public var fleetStatistics: SharedCacheStatistics { state.withLock { $0.fleet } }

    /// Adds `statistics` to ``fleetStatistics``; counted as a ``Operation/record``. Throws
    /// ``failure`` when set.
    public func record(_ statistics: SharedCacheStatistics) async throws {
        try begin(.record)
        state.withLock { $0.fleet = $0.fleet.adding(statistics) }
    }

    /// Releases `lease` if its token still holds it; counted as a ``Operation/release``. Throws
    /// ``failure`` when set.
    public func releaseLease(_ lease: SharedCacheLease) async throws {
        try begin(.release)
        state.withLock { s in
            if s.leases[lease.key]?.token == lease.token { s.leases[lease.key] = nil }
        }
    }

    private func begin(_ operation: Operation) throws {
        let failure: (any Error)? = state.withLock { s in
            s.counts[operation, default: 0] += 1
            return s.failure
        }
        if let failure { throw failure }
    }
}
