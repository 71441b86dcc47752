import Foundation
import Synchronization

/// A keyed pool of ``SharedJob``s: the coalescing point of one pipeline stage.
///
/// A caller asking for a key while a job for it runs joins that job; otherwise it starts one.
/// The caller's Swift task cancellation unsubscribes it; the job is cancelled with its last
/// subscriber.
final class SharedWorkPool<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// What the work closure may use.
    struct Context: Sendable {
        /// The job's priority (highest of its subscribers); pass it to dependencies and queues.
        let priority: PriorityHandle
        /// Forwards progress to every subscriber.
        let reportProgress: @Sendable (TransferProgress) -> Void
        /// Forwards previews to every subscriber that takes them; pass it to dependencies.
        let previews: any PreviewTarget
    }

    private let jobs = Mutex<[Key: SharedJob<Value>]>([:])

    init() {}

    /// Number of jobs running (for tests and statistics).
    var count: Int { jobs.withLock { $0.count } }

    /// Callers subscribed to running jobs, summed over the pool (for tests).
    var subscriberCount: Int {
        let jobs = jobs.withLock { Array($0.values) }
        return jobs.reduce(0) { $0 + $1.subscriberCount }
    }

    /// Returns the value for `key`, joining the running job or starting `work`.
    ///
    /// - Parameters:
    ///   - priority: the caller's priority; the job runs at the highest of its callers'.
    ///   - progress: called with progress the work reports, while this caller is subscribed.
    ///   - preview: where previews the work reports go while this caller is subscribed; `nil`
    ///     for a caller that takes none.
    ///   - joined: called with `true` when the caller joined running work, `false` when it
    ///     started it (synchronously, before any await).
    /// - Throws: what `work` throws, or `CancellationError` when the calling task is cancelled.
    ///
    /// `nonisolated(nonsending)`, as the other async steps of a request: they run on their
    /// caller's executor instead of checking for a hop at every `await`
    /// (`pipeline.bookkeeping.instant-transport` in the benchmark suite).
    nonisolated(nonsending) func value(
        for key: Key,
        priority: PriorityHandle,
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        preview: (any PreviewTarget)? = nil,
        joined: (Bool) -> Void = { _ in },
        work: nonisolated(nonsending) @escaping @Sendable (Context) async throws -> Value
    ) async throws -> Value {
        let registration = Registration()
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: SharedJob<Value>.Continuation) in
                // A caller cancelled before it asks starts nothing: work starts on this thread
                // and could otherwise run to its end before the cancellation is seen below.
                if registration.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                let subscriber = SharedJob<Value>.Subscriber(
                    continuation: continuation, priority: priority, progress: progress, preview: preview)
                let id = registration.id
                var created: SharedJob<Value>?
                let job: SharedJob<Value> = jobs.withLock { dict in
                    if let existing = dict[key], existing.subscribe(id: id, subscriber) { return existing }
                    let job = SharedJob<Value>(priority: priority.value)
                    _ = job.subscribe(id: id, subscriber)
                    dict[key] = job
                    created = job
                    return job
                }
                job.didSubscribe(priority, isCreator: created != nil)
                joined(created == nil)
                if let created {
                    // A strong reference, not a weak one (which would give every job a side
                    // table): the job holds its task only while it runs, and the task lets go
                    // of this closure when it ends.
                    let context = Context(
                        priority: created.priority, reportProgress: { created.reportProgress($0) },
                        previews: created)
                    created.start { [weak self] in
                        let result: Result<Value, any Error>
                        do { result = .success(try await work(context)) } catch { result = .failure(error) }
                        self?.remove(key, created)
                        created.finish(result)
                    }
                }
                if registration.attach(job) { self.leave(key, job, id: id) }
            }
        } onCancel: {
            if let (job, id) = registration.cancel() {
                // Only this pool's jobs are ever attached to its registrations.
                self.leave(key, unsafeDowncast(job, to: SharedJob<Value>.self), id: id)
            }
        }
    }

    private func leave(_ key: Key, _ job: SharedJob<Value>, id: Int) {
        if job.unsubscribe(id: id) { remove(key, job) }
    }

    private func remove(_ key: Key, _ job: SharedJob<Value>) {
        jobs.withLock { dict in
            // One lookup, not two (`dict[key]` then `dict[key] = nil`).
            if let index = dict.index(forKey: key), dict.values[index] === job { dict.remove(at: index) }
        }
    }
}

/// Links a caller's cancellation handler with the job it subscribed to, whichever comes first.
///
/// Not generic (the job is kept as `AnyObject`): a generic class's deinit is never
/// specialised, and destroying a job-typed field there looked its metadata up at run time
/// (`pipeline.bookkeeping.instant-transport` in the benchmark suite).
private final class Registration: Sendable {
    private static var nextID: Int { SubscriberIDs.next() }
    let id = Registration.nextID
    private let state = Mutex<(job: (any AnyObject & Sendable)?, cancelled: Bool)>((nil, false))

    /// Records the job; returns `true` when the caller was already cancelled (so it must leave).
    func attach(_ job: any AnyObject & Sendable) -> Bool {
        state.withLock { $0.job = job; return $0.cancelled }
    }

    /// Whether the caller was cancelled (its handler may run before its work is asked for).
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Marks the caller cancelled; returns the job to leave when already attached.
    func cancel() -> ((any AnyObject & Sendable), Int)? {
        state.withLock { s in
            s.cancelled = true
            return s.job.map { ($0, id) }
        }
    }
}

/// Process-wide unique subscriber identifiers.
enum SubscriberIDs {
    private static let counter = Atomic<Int>(0)
    static func next() -> Int { counter.add(1, ordering: .relaxed).newValue }
}
