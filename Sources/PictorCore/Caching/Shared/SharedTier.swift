import Foundation
import Synchronization

/// The pipeline's use of a ``SharedDataCache``: fail-open operations (an error is a miss, never a
/// failed load), the circuit breaker, the size limit, the wait for another process's download,
/// and the counters. The fetch stage is its only user.
package final class SharedTier: Sendable {
    /// What taking the download lease gave.
    package enum Claim: Sendable, Equatable {
        /// This process holds the lease: it downloads and stores for the fleet.
        case leased(SharedCacheLease)
        /// Another process stored a new entry between the first read and the lease (the lease
        /// was given back): serve it.
        case stored(DataCacheEntry)
        /// Another process holds it: wait for its result.
        case heldElsewhere
        /// No lease (coalescing off, or the tier failed or is skipped): download without one.
        case unavailable
    }

    let cache: any SharedDataCache
    let policy: SharedCachePolicy
    private let logger: PictorLog
    private let breaker: Mutex<CircuitBreaker>
    private let counters = Mutex(SharedCacheStatistics())
    /// What was added to the fleet's counters, when, and whether a record is under way.
    private let recording = Mutex<(recorded: SharedCacheStatistics, last: Double?, inFlight: Bool)>((SharedCacheStatistics(), nil, false))
    private let reportedRejection = Mutex(false)
    private let origin = ContinuousClock.now

    package init(cache: any SharedDataCache, policy: SharedCachePolicy, logger: PictorLog) {
        self.cache = cache
        self.policy = policy
        self.logger = logger
        self.breaker = Mutex(CircuitBreaker(threshold: policy.failureThreshold, coolDown: policy.coolDown.seconds))
    }

    /// A snapshot of the counters.
    package var statistics: SharedCacheStatistics { counters.withLock { $0 } }

    /// The entry for `key`, or `nil` (absent, unusable, or the tier failed or is skipped).
    package func entry(for key: String) async -> DataCacheEntry? {
        await lookup(key) ?? nil
    }

    /// One read, counted as a hit or a miss; `nil` when it failed or was skipped (counted
    /// there), `.some(nil)` for a miss.
    private func lookup(_ key: String) async -> DataCacheEntry?? {
        let entry: DataCacheEntry?? = await perform { try await self.cache.entry(for: key) }
        if let found = entry { counters.withLock { found == nil ? ($0.misses += 1) : ($0.hits += 1) } }
        return entry
    }

    /// Shares `entry` unless it is too large.
    package func store(_ entry: DataCacheEntry, for key: String) async {
        guard entry.data.count <= policy.maximumEntrySize else {
            counters.withLock { $0.oversized += 1 }
            return
        }
        let done: Void? = await perform { try await self.cache.store(entry, for: key, timeToLive: self.policy.timeToLive) }
        if done != nil { counters.withLock { $0.stores += 1 } }
    }

    /// Counts a result the shared rules kept out of the tier (`private`, or a response to a
    /// request with credentials that does not allow sharing).
    func countNotShared(_ reason: CacheRules.Refusal) {
        switch reason {
        case .private: counters.withLock { $0.notSharedPrivate += 1 }
        case .authorized: counters.withLock { $0.notSharedAuthorized += 1 }
        case .noStore, .unmatchableVary: break
        }
    }

    /// Removes the entry for `key` (its bytes failed to decode).
    package func remove(_ key: String) async {
        _ = await perform { try await self.cache.removeEntry(for: key) }
    }

    /// Tries to take the download lease of `key`.
    ///
    /// - Parameter previous: the entry read before (a stale one, or `nil`): with the lease
    ///   taken, the entry is read once more, because a holder may have stored it and let go
    ///   of its lease between that read and this one; only an entry other than `previous`
    ///   counts.
    package func claim(_ key: String, previous: DataCacheEntry?) async -> Claim {
        guard policy.coalescesDownloads else { return .unavailable }
        let taken: SharedCacheLease?? = await perform {
            try await self.cache.acquireLease(for: key, duration: self.policy.leaseDuration)
        }
        switch taken {
        case .some(.some(let lease)):
            if case .some(.some(let entry)) = await lookup(key), entry != previous {
                await release(lease)
                return .stored(entry)
            }
            counters.withLock { $0.leasesTaken += 1 }
            return .leased(lease)
        case .some(.none):
            return .heldElsewhere
        case .none:
            return .unavailable
        }
    }

    /// Releases a lease this process took.
    package func release(_ lease: SharedCacheLease) async {
        _ = await perform { try await self.cache.releaseLease(lease) }
    }

    /// Waits, up to ``SharedCachePolicy/maximumWait``, for the holder of `key`'s lease to finish,
    /// then reads what it stored.
    ///
    /// - Parameter previous: the entry read before waiting (a stale one), which does not count
    ///   as the holder's result.
    /// - Returns: the holder's entry; `nil` when it stored nothing new, the tier failed, or the
    ///   bound passed (the caller then downloads itself).
    package func awaitHolder(of key: String, previous: DataCacheEntry?) async throws -> DataCacheEntry? {
        counters.withLock { $0.waits += 1 }
        let deadline = ContinuousClock.now + policy.maximumWait
        var pause = policy.initialPollInterval
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: min(pause, max(.zero, deadline - ContinuousClock.now)))
            try Task.checkCancellation()
            pause = min(pause * 2, policy.maximumPollInterval)
            guard let leased: Bool = await perform({ try await self.cache.isLeased(key) }) else { break }
            if leased { continue }
            if case .some(.some(let entry)) = await lookup(key), entry != previous {
                return entry
            }
            break
        }
        counters.withLock { $0.fallbacks += 1 }
        return nil
    }

    /// Adds the counters not yet recorded to the fleet's, now, and waits for it.
    package func recordStatistics() async {
        guard let delta = takeUnrecorded(due: { _ in true }) else { return }
        await send(delta)
    }

    /// Records in the background when the interval has passed since the last record.
    private func recordIfDue() {
        guard let interval = policy.statisticsInterval?.seconds else { return }
        let now = now
        guard let delta = takeUnrecorded(due: { last in last.map { now - $0 >= interval } ?? true }) else { return }
        Task { await self.send(delta) }
    }

    /// The counters not yet recorded, marked as recorded, when `due` says so and no record is
    /// under way.
    private func takeUnrecorded(due: (Double?) -> Bool) -> SharedCacheStatistics? {
        let current = statistics
        let now = now
        return recording.withLock { r in
            guard !r.inFlight, due(r.last), current != r.recorded else { return nil }
            let delta = current.subtracting(r.recorded)
            r = (current, now, true)
            return delta
        }
    }

    /// Sends `delta`; on failure it is owed again, and goes with the next record. Not through
    /// `perform`: a failed record is not an image operation, and counting it would be one more
    /// counter to record.
    private func send(_ delta: SharedCacheStatistics) async {
        let sent = (try? await cache.record(delta)) != nil
        recording.withLock { r in
            if !sent { r.recorded = r.recorded.subtracting(delta) }
            r.inFlight = false
        }
    }

    /// Runs `operation` through the circuit breaker: `nil` when it was skipped or failed (both
    /// counted), its value otherwise.
    private func perform<T: Sendable>(_ operation: @Sendable () async throws -> T) async -> T? {
        defer { recordIfDue() }
        let decision = breaker.withLock { $0.decide(now: now) }
        guard decision == .proceed else {
            counters.withLock { $0.skips += 1 }
            return nil
        }
        do {
            let value = try await operation()
            if breaker.withLock({ $0.succeeded() }) == .closed {
                logger.log(.info, "shared cache: answering again; back in use")
            }
            return value
        } catch is CancellationError {
            // The caller went away: says nothing about the tier's health.
            return nil
        } catch let rejection as SharedDataCacheError {
            let reason = rejection.reason
            // The tier answered: it is healthy, only this operation was refused (a full Redis
            // refuses writes and leases but still serves reads).
            counters.withLock { $0.rejections += 1 }
            _ = breaker.withLock { $0.succeeded() }
            if reportedRejection.withLock({ reported in defer { reported = true }; return !reported }) {
                logger.log(.warning, "shared cache refused an operation (\(reason)); it stays in use for what it accepts")
            }
            return nil
        } catch {
            counters.withLock { $0.errors += 1 }
            if breaker.withLock({ $0.failed(now: now) }) == .opened {
                logger.log(.warning, "shared cache unavailable (\(error)); skipped for \(Int(policy.coolDown.seconds.rounded(.up))) s, images load without it")
            }
            return nil
        }
    }

    private var now: Double { (ContinuousClock.now - origin).seconds }
}
