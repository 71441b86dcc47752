import Foundation
import Synchronization

/// Bounded concurrency served highest priority first (FIFO within a priority).
///
/// Priorities are read when a slot frees up, so a priority changed while waiting takes effect
/// at the next pick.
///
/// - Complexity: `acquire` O(1) when a slot is free; each `release` scans the waiters, O(n).
final class RequestScheduler: Sendable {
    private struct Waiter {
        var id: Int
        var priority: @Sendable () -> RequestPriority
        var continuation: CheckedContinuation<Void, any Error>
    }
    private struct State {
        var running = 0
        var waiters: [Waiter] = []
        var nextID = 0
    }
    private let state = Mutex(State())
    /// Slots; at least 1.
    let limit: Int

    init(limit: Int) { self.limit = max(1, limit) }

    /// Waits for a slot. Pair every successful call with ``release()``.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting (no slot is held).
    func acquire(priority: @escaping @Sendable () -> RequestPriority) async throws {
        let id = state.withLock { s -> Int in defer { s.nextID += 1 }; return s.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { s -> Bool? in
                    if Task.isCancelled { return false }
                    if s.running < limit { s.running += 1; return true }
                    s.waiters.append(Waiter(id: id, priority: priority, continuation: continuation))
                    return nil
                }
                switch outcome {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { s -> Waiter? in
                guard let index = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Frees a slot, handing it to the highest-priority waiter (the oldest among equals).
    func release() {
        let next = state.withLock { s -> Waiter? in
            guard !s.waiters.isEmpty else { s.running -= 1; return nil }
            var best = 0
            var bestPriority = s.waiters[0].priority()
            for index in s.waiters.indices.dropFirst() {
                let p = s.waiters[index].priority()
                if p > bestPriority { best = index; bestPriority = p }
            }
            return s.waiters.remove(at: best)
        }
        next?.continuation.resume()
    }

    /// Transfers running now (for tests and statistics).
    var runningCount: Int { state.withLock { $0.running } }
    /// Transfers waiting for a slot.
    var waitingCount: Int { state.withLock { $0.waiters.count } }
}
