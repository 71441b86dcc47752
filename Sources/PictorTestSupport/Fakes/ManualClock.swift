import Foundation
import Synchronization

/// A `Clock` that moves only when a test calls ``advance(by:)``: for TTLs, sweeps and timeouts
/// without sleeping. Sleepers wake, in deadline order, when the clock passes their deadline;
/// a cancelled sleeper throws `CancellationError` at once.
///
/// ```swift
/// let clock = ManualClock()
/// let cache = SomeCache(ttl: .seconds(60), clock: clock)
/// clock.advance(by: .seconds(61))   // the entry is now expired
/// ```
public final class ManualClock: Clock, Sendable {
    /// A point on the manual time line: the offset from the clock's start.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// Time since the clock's start.
        public var offset: Duration

        /// Creates an instant `offset` after the start.
        public init(offset: Duration) { self.offset = offset }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The duration from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Whether `lhs` is earlier.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
    }
    private let state = Mutex(State())

    /// Creates a clock at offset zero.
    public init() {}

    /// The current instant.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: the clock is exact.
    public var minimumResolution: Duration { .zero }

    /// Number of tasks sleeping now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves time forward by `duration` and wakes every sleeper whose deadline passed.
    public func advance(by duration: Duration) {
        let woken: [Sleeper] = state.withLock { s in
            s.now = s.now.advanced(by: duration)
            let now = s.now
            let due = s.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { s.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Suspends until the clock reaches `deadline` (returns at once if it has).
    ///
    /// - Throws: `CancellationError` when the sleeping task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id: Int? = state.withLock { s in
            guard deadline > s.now else { return nil }
            s.nextID += 1
            return s.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { s in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= s.now { return .success(()) }
                    s.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
