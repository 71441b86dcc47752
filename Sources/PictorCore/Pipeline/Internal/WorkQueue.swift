import Dispatch
import Foundation
import Synchronization

/// A bounded queue for heavy synchronous work (decode, process, encode): at most `width` items
/// run at once, each on a Dispatch global-queue thread (never on the Swift cooperative pool),
/// and waiting items start highest priority first, then first come, first served.
///
/// A waiting item whose Swift task is cancelled leaves the queue at once with
/// `CancellationError`; an item that already runs completes.
final class WorkQueue: Sendable {
    private struct Waiter {
        let order: Int
        let priority: PriorityHandle
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var running = 0
        var waiters: [Int: Waiter] = [:]
        var nextOrder = 0
    }

    /// Maximum number of items running at once (≥ 1).
    let width: Int
    private let state = Mutex(State())
    private let dispatchQueue: DispatchQueue

    /// Creates a queue running at most `width` items at once (clamped to ≥ 1).
    init(width: Int, label: String) {
        self.width = max(1, width)
        self.dispatchQueue = DispatchQueue(label: label, attributes: .concurrent)
    }

    /// Runs `work` when a slot is free.
    ///
    /// - Returns: the work's result and the time spent waiting for a slot, in seconds.
    /// - Throws: what `work` throws, or `CancellationError` when cancelled while waiting.
    func execute<T: Sendable>(
        priority: PriorityHandle, _ work: @escaping @Sendable () throws -> T
    ) async throws -> (value: T, queueWait: Double) {
        let enqueued = ContinuousClock.now
        try await acquire(priority: priority)
        let waited = (ContinuousClock.now - enqueued).seconds
        defer { release() }
        let value: T = try await withCheckedThrowingContinuation { continuation in
            dispatchQueue.async {
                continuation.resume(with: Result { try work() })
            }
        }
        return (value, waited)
    }

    /// Items waiting for a slot (for tests).
    var waitingCount: Int { state.withLock { $0.waiters.count } }
    /// Whether every slot is taken (for tests).
    var isBusy: Bool { state.withLock { $0.running >= width } }

    /// Takes a slot, waiting by priority when none is free (internal for tests).
    func acquire(priority: PriorityHandle) async throws {
        let order: Int? = state.withLock { s in
            if s.running < width && s.waiters.isEmpty {
                s.running += 1
                return nil
            }
            s.nextOrder += 1
            return s.nextOrder
        }
        guard let order else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = state.withLock { s -> Bool in
                    if Task.isCancelled { return true }
                    s.waiters[order] = Waiter(order: order, priority: priority, continuation: continuation)
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    // A slot may have been freed between the two locks.
                    dispatchNext()
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: order) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Frees a slot taken by ``acquire(priority:)`` (internal for tests).
    func release() {
        state.withLock { $0.running -= 1 }
        dispatchNext()
    }

    /// Hands free slots to the highest-priority waiters.
    private func dispatchNext() {
        while true {
            let next: Waiter? = state.withLock { s in
                guard s.running < width, !s.waiters.isEmpty else { return nil }
                let best = s.waiters.values.max { a, b in
                    let pa = a.priority.value, pb = b.priority.value
                    return pa != pb ? pa < pb : a.order > b.order
                }!
                s.waiters[best.order] = nil
                s.running += 1
                return best
            }
            guard let next else { return }
            next.continuation.resume()
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) * 1e-18
    }
}
