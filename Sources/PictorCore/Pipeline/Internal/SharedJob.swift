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
final class SharedJob<Value: Sendable>: Sendable, PreviewTarget {
    /// Unsafe rather than checked: a checked continuation asks the runtime for its generic type
    /// metadata on every copy and resume (a dozen lookups per request, about 4,000 instructions;
    /// `pipeline.bookkeeping.instant-transport` in the benchmark suite). Each is resumed exactly
    /// once because ``SharedJobState`` hands every subscriber out exactly once: by
    /// `unsubscribe` or by `finish`, never both (its tests).
    typealias Continuation = UnsafeContinuation<Value, any Error>

    typealias Subscriber = SharedJobSubscriber

    /// The highest priority among the subscribers; the work reads and observes it.
    let priority: PriorityHandle
    private let state = Mutex(SharedJobState<Subscriber, Task<Void, Never>>())

    init(priority: RequestPriority) {
        self.priority = PriorityHandle(priority)
    }

    /// Adds a subscriber; returns `false` when the job is already finished or cancelled. The
    /// caller then calls ``didSubscribe(_:isCreator:)`` outside its pool's lock.
    func subscribe(id: Int, _ subscriber: Subscriber) -> Bool {
        state.withLock { $0.subscribe(id: id, subscriber) }
    }

    /// Follows the new subscriber's priority (called with no lock held, since priority
    /// observers run synchronously). A creator whose priority never changes needs nothing:
    /// the job was made at that priority.
    ///
    /// - Parameters:
    ///   - priority: the subscriber's priority.
    ///   - isCreator: whether this subscriber made the job.
    func didSubscribe(_ priority: PriorityHandle, isCreator: Bool) {
        if !priority.isFixed { priority.onChange { [weak self] _ in self?.updatePriority() } }
        if !(isCreator && priority.isFixed) { updatePriority() }
    }

    /// Starts the work; called once, by the creator, after the job is in its pool.
    ///
    /// The work starts on the creator's thread and runs there until it first suspends
    /// (`Task.immediate`), rather than being enqueued for another thread: work that completes
    /// without suspending (a disk or shared-tier answer, a memory-speed transport) then costs
    /// no thread hop (`pipeline.bookkeeping.instant-transport`). It is still a task of its own,
    /// so the creator's cancellation does not cancel work that other callers share.
    func start(_ body: nonisolated(nonsending) @escaping @Sendable () async -> Void) {
        let task = Task.immediate { await body() }
        // The last subscriber may have left before the task existed.
        state.withLock { $0.start(task) }?.cancel()
    }

    /// Removes one subscriber and fails its continuation with `CancellationError`. Returns `true`
    /// when it was the last one, in which case the work is cancelled and the job closed.
    @discardableResult
    func unsubscribe(id: Int) -> Bool {
        switch state.withLock({ $0.unsubscribe(id: id) }) {
        case .none:
            return false
        case .cancelSubscriber(let subscriber):
            subscriber.continuation.resume(Value.self, with: .failure(CancellationError()))
            updatePriority()
            return false
        case .cancelSubscriberAndWork(let subscriber, let task):
            subscriber.continuation.resume(Value.self, with: .failure(CancellationError()))
            task?.cancel()
            return true
        }
    }

    /// Delivers the outcome to every subscriber and closes the job.
    func finish(_ result: Result<Value, any Error>) {
        let delivery = state.withLock { $0.finish() }
        delivery.first?.continuation.resume(Value.self, with: result)
        for subscriber in delivery.rest { subscriber.continuation.resume(Value.self, with: result) }
    }

    /// Forwards transfer progress to every subscriber that asked for it.
    func reportProgress(_ progress: TransferProgress) {
        // Closures rather than key paths, here and in `updatePriority`: a key path through this
        // generic type is instantiated at run time on every call.
        // Most loads have no progress observer: no array is built for them (this runs on the
        // transport's event thread, several times per download).
        let callbacks = state.withLock { s in
            s.contains { $0.progress != nil } ? s.subscribers.compactMap(\.progress) : []
        }
        for callback in callbacks { callback(progress) }
    }

    /// Forwards a preview to every subscriber that takes previews; a finished job has no
    /// subscribers left, so a preview made after the outcome reaches no one.
    func deliverPreview(_ preview: Image, kind: ImagePreviewKinds) {
        let targets = state.withLock { s in
            s.contains { $0.preview != nil } ? s.subscribers.compactMap(\.preview) : []
        }
        for target in targets { target.deliverPreview(preview, kind: kind) }
    }

    /// The kinds of previews some subscriber, or some caller above it, takes now. The sinks
    /// are asked outside this job's lock: each asks the job above it in turn.
    var wantedPreviews: ImagePreviewKinds {
        let targets = state.withLock { s in
            s.contains { $0.preview != nil } ? s.subscribers.compactMap(\.preview) : []
        }
        return targets.reduce(into: []) { $0.formUnion($1.wantedPreviews) }
    }

    /// Number of current subscribers (for tests and statistics).
    var subscriberCount: Int { state.withLock { $0.count } }

    private func updatePriority() {
        let highest: RequestPriority? = state.withLock { s in
            s.subscribers.lazy.map { $0.priority.value }.max()
        }
        if let highest { priority.update(highest) }
    }
}

/// One caller waiting for a ``SharedJob``: not nested in the generic job, so that its type,
/// and the job state's, do not depend on the job's value (see ``ErasedContinuation``).
struct SharedJobSubscriber {
    var continuation: ErasedContinuation
    var priority: PriorityHandle
    var progress: (@Sendable (TransferProgress) -> Void)?
    var preview: (any PreviewTarget)?

    init<Value: Sendable>(
        continuation: UnsafeContinuation<Value, any Error>, priority: PriorityHandle,
        progress: (@Sendable (TransferProgress) -> Void)?, preview: (any PreviewTarget)? = nil
    ) {
        self.continuation = ErasedContinuation(continuation)
        self.priority = priority
        self.progress = progress
        self.preview = preview
    }
}

/// A subscriber's continuation with its value type erased, so that a job's stored state has
/// the same layout whatever the job's value. A generic class's deinit is never specialised:
/// destroying state whose type depends on `Value` looks the generic metadata of each type up
/// (three lookups per job, about 1,000 instructions; `pipeline.bookkeeping.instant-transport`
/// in the benchmark suite). An `UnsafeContinuation` is one pointer, so the erasure is a
/// bit cast; the job resumes it with the type it was made with.
struct ErasedContinuation: @unchecked Sendable {
    private let raw: UnsafeRawPointer

    init<Value: Sendable>(_ continuation: UnsafeContinuation<Value, any Error>) {
        raw = unsafeBitCast(continuation, to: UnsafeRawPointer.self)
    }

    /// Resumes the continuation, which must have been made for `Value`.
    func resume<Value: Sendable>(_: Value.Type, with result: Result<Value, any Error>) {
        unsafeBitCast(raw, to: UnsafeContinuation<Value, any Error>.self).resume(with: result)
    }
}
