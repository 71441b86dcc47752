import Foundation
import Synchronization

/// Bounded concurrency served highest priority first (FIFO within a priority).
///
/// Waiters sit in one FIFO queue per ``RequestPriority``; ``reprioritize(_:to:)`` moves a
/// waiting entry when its priority changes while queued.
///
/// - Complexity: `acquire` and `release` O(1) amortised (5 queues); `reprioritize` O(n) in the
///   waiters of the old priority.
final class RequestScheduler: Sendable {
    private struct Waiter {
        var id: Int
        var continuation: CheckedContinuation<Void, any Error>
    }
    private struct Queue {
        var items: [Waiter] = []
        var head = 0
        var isEmpty: Bool { head == items.count }
        var count: Int { items.count - head }
        mutating func append(_ w: Waiter) { items.append(w) }
        mutating func popFirst() -> Waiter? {
            guard head < items.count else { return nil }
            defer {
                head += 1
                if head > 64, head * 2 > items.count { items.removeFirst(head); head = 0 }
            }
            return items[head]
        }
        mutating func remove(id: Int) -> Waiter? {
            guard let index = items[head...].firstIndex(where: { $0.id == id }) else { return nil }
            return items.remove(at: index)
        }
    }
    private struct State {
        var running = 0
        var queues = [Queue](repeating: Queue(), count: RequestPriority.allCases.count)
        var priorities: [Int: RequestPriority] = [:]
    }
    private let state = Mutex(State())
    /// Slots; at least 1.
    let limit: Int

    init(limit: Int) { self.limit = max(1, limit) }

    /// Waits for a slot for the work `id`, queued at `priority()` (read once, when it has to
    /// wait). Pair every successful call with ``release()``.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while waiting (no slot is held).
    func acquire(id: Int, priority: @Sendable () -> RequestPriority) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { s -> Bool? in
                    if Task.isCancelled { return false }
                    if s.running < limit { s.running += 1; return true }
                    let p = priority()
                    s.queues[p.rawValue].append(Waiter(id: id, continuation: continuation))
                    s.priorities[id] = p
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
                guard let priority = s.priorities.removeValue(forKey: id) else { return nil }
                return s.queues[priority.rawValue].remove(id: id)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the waiting work `id` to `priority` (behind the others already there); no-op
    /// when it is not waiting.
    func reprioritize(_ id: Int, to priority: RequestPriority) {
        state.withLock { s in
            guard let old = s.priorities[id], old != priority,
                  let waiter = s.queues[old.rawValue].remove(id: id) else { return }
            s.queues[priority.rawValue].append(waiter)
            s.priorities[id] = priority
        }
    }

    /// Frees a slot, handing it to the oldest waiter of the highest priority.
    func release() {
        let next = state.withLock { s -> Waiter? in
            for p in s.queues.indices.reversed() {
                if let waiter = s.queues[p].popFirst() {
                    s.priorities[waiter.id] = nil
                    return waiter
                }
            }
            s.running -= 1
            return nil
        }
        next?.continuation.resume()
    }

    /// Work running now (for tests and statistics).
    var runningCount: Int { state.withLock { $0.running } }
    /// Work waiting for a slot.
    var waitingCount: Int { state.withLock { s in s.queues.reduce(0) { $0 + $1.count } } }
}
