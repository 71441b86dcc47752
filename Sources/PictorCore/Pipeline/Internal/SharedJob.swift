import Foundation
import Synchronization

/// One piece of pipeline work (a fetch, a decode, a processing step, a whole load) shared by
/// every caller that asks for the same key while it runs.
///
/// - Its ``priority`` is the highest priority among its subscribers, updated as they come, go
///   or change priority.
/// - Progress reported by the work is forwarded to every subscriber.
/// - It is cancelled (its Swift task cancelled) when its last subscriber leaves; once cancelled
///   or finished it accepts no new subscriber, so the pool starts fresh work for later callers.
///
/// Lock order: the pool's lock may be held while taking a job's lock, never the reverse.
final class SharedJob<Value: Sendable>: Sendable {
    typealias Continuation = CheckedContinuation<Value, any Error>

    struct Subscriber {
        var continuation: Continuation
        var priority: PriorityHandle
        var progress: (@Sendable (TransferProgress) -> Void)?
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var task: Task<Void, Never>?
        var isClosed = false
        var lastProgress: TransferProgress?
    }

    /// The highest priority among the subscribers; the work reads and observes it.
    let priority: PriorityHandle
    private let state = Mutex(State())

    init(priority: RequestPriority) {
        self.priority = PriorityHandle(priority)
    }

    /// Adds a subscriber; returns `false` when the job is already finished or cancelled. The
    /// caller then calls ``didSubscribe(_:)`` outside its pool's lock.
    func subscribe(id: Int, _ subscriber: Subscriber) -> Bool {
        state.withLock {
            guard !$0.isClosed else { return false }
            $0.subscribers[id] = subscriber
            return true
        }
    }

    /// Follows the new subscriber's priority (called with no lock held, since priority
    /// observers run synchronously).
    func didSubscribe(_ priority: PriorityHandle) {
        priority.onChange { [weak self] _ in self?.updatePriority() }
        updatePriority()
    }

    /// Starts the work; called once, by the creator, after the job is in its pool.
    func start(_ body: @escaping @Sendable () async -> Void) {
        let task = Task { await body() }
        // The last subscriber may have left before the task existed.
        let cancelNow = state.withLock { s -> Bool in
            s.task = task
            return s.isClosed
        }
        if cancelNow { task.cancel() }
    }

    /// Removes one subscriber and fails its continuation with `CancellationError`. Returns `true`
    /// when it was the last one, in which case the work is cancelled and the job closed.
    @discardableResult
    func unsubscribe(id: Int) -> Bool {
        let (removed, task, wasLast): (Subscriber?, Task<Void, Never>?, Bool) = state.withLock { s in
            guard let sub = s.subscribers.removeValue(forKey: id) else { return (nil, nil, false) }
            if s.subscribers.isEmpty && !s.isClosed {
                s.isClosed = true
                return (sub, s.task, true)
            }
            return (sub, nil, false)
        }
        removed?.continuation.resume(throwing: CancellationError())
        if wasLast {
            task?.cancel()
        } else if removed != nil {
            updatePriority()
        }
        return wasLast
    }

    /// Delivers the outcome to every subscriber and closes the job.
    func finish(_ result: Result<Value, any Error>) {
        let subscribers: [Subscriber] = state.withLock { s in
            s.isClosed = true
            defer { s.subscribers.removeAll() }
            return Array(s.subscribers.values)
        }
        for subscriber in subscribers { subscriber.continuation.resume(with: result) }
    }

    /// Forwards transfer progress to every subscriber that asked for it.
    func reportProgress(_ progress: TransferProgress) {
        let callbacks = state.withLock { s -> [@Sendable (TransferProgress) -> Void] in
            s.lastProgress = progress
            return s.subscribers.values.compactMap(\.progress)
        }
        for callback in callbacks { callback(progress) }
    }

    /// Number of current subscribers (for tests and statistics).
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    private func updatePriority() {
        let highest: RequestPriority? = state.withLock { s in
            s.subscribers.values.map(\.priority.value).max()
        }
        if let highest { priority.update(highest) }
    }
}
