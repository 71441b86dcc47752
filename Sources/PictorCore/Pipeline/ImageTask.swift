import Dispatch
import Foundation
import Synchronization

/// A running image request: cancel it, change its priority, watch its progress and events, or
/// await its response. Made by ``ImagePipeline/imageTask(for:)`` and
/// ``ImagePipeline/loadImage(with:queue:progress:completion:)``.
///
/// ```swift
/// let task = pipeline.imageTask(for: request)
/// Task { for await p in task.progress { print(p.fraction ?? 0) } }
/// let response = try await task.response
/// ```
///
/// - Important: thread-safe. Cancelling completes the task at once with
///   ``ImagePipeline/Error/cancelled``; the shared work behind it stops only when no other
///   caller needs it.
public final class ImageTask: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// Where the task is in its life.
    public enum State: Sendable, Hashable {
        /// Loading.
        case running
        /// Delivered a response.
        case completed
        /// Failed with an error other than cancellation.
        case failed
        /// Cancelled before it completed.
        case cancelled
    }

    /// What happens to a task, in order: progress and priority changes, then exactly one
    /// ``finished(_:)``.
    public enum Event: Sendable {
        /// Bytes arrived from the network.
        case progress(TransferProgress)
        /// The task's priority changed.
        case priorityChanged(RequestPriority)
        /// The task completed, failed or was cancelled (then with ``ImagePipeline/Error/cancelled``).
        case finished(Result<ImageResponse, ImagePipeline.Error>)
    }

    private struct Callbacks {
        let queue: DispatchQueue
        let progress: (@Sendable (TransferProgress) -> Void)?
        let completion: @Sendable (Result<ImageResponse, ImagePipeline.Error>) -> Void
    }

    private struct Storage {
        var result: Result<ImageResponse, ImagePipeline.Error>?
        var work: Task<Void, Never>?
        var waiters: [Int: CheckedContinuation<ImageResponse, any Swift.Error>] = [:]
        var events: [Int: AsyncStream<Event>.Continuation] = [:]
        var progress: [Int: AsyncStream<TransferProgress>.Continuation] = [:]
        var callbacks: Callbacks?
        var lastProgress: TransferProgress?
    }

    /// A process-wide unique identifier.
    public let id: Int
    /// The request this task loads.
    public let request: ImageRequest
    let priorityHandle: PriorityHandle
    private let storage = Mutex(Storage())

    init(request: ImageRequest) {
        self.id = SubscriberIDs.next()
        self.request = request
        self.priorityHandle = PriorityHandle(request.priority)
    }

    /// The current priority; the work behind the task runs at the highest priority of its callers.
    public var priority: RequestPriority { priorityHandle.value }

    /// Changes the priority; queued shared work is reordered at once.
    ///
    /// - Parameter priority: the new priority; ignored once the task has completed.
    public func setPriority(_ priority: RequestPriority) {
        guard priorityHandle.value != priority, state == .running else { return }
        priorityHandle.update(priority)
        emit(.priorityChanged(priority))
    }

    /// Where the task is.
    public var state: State {
        switch storage.withLock({ $0.result }) {
        case nil: .running
        case .success: .completed
        case .failure(.cancelled): .cancelled
        case .failure: .failed
        }
    }

    /// Cancels the task: it completes with ``ImagePipeline/Error/cancelled`` (unless it already
    /// completed); the work stops when no other caller needs it.
    public func cancel() {
        let work = storage.withLock { $0.result == nil ? $0.work : nil }
        finish(.failure(.cancelled))
        work?.cancel()
    }

    /// The response, awaited. Cancelling the awaiting task cancels this image task.
    ///
    /// - Throws: the task's ``ImagePipeline/Error``.
    public var response: ImageResponse {
        get async throws(ImagePipeline.Error) {
            let id = SubscriberIDs.next()
            do {
                return try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { continuation in
                        let done: Result<ImageResponse, ImagePipeline.Error>? = storage.withLock { s in
                            if let result = s.result { return result }
                            s.waiters[id] = continuation
                            return nil
                        }
                        if let done { continuation.resume(with: done.mapError { $0 }) }
                    }
                } onCancel: {
                    self.cancel()
                }
            } catch {
                throw ImagePipeline.Error(error)
            }
        }
    }

    /// The final image, awaited (``response``'s image).
    public var image: Image {
        get async throws(ImagePipeline.Error) { try await response.image }
    }

    /// Transfer progress from now on, finishing when the task does. Each access makes a new
    /// stream; it starts with the latest progress, if any.
    public var progress: AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(64))
        let key = SubscriberIDs.next()
        let (finished, last) = storage.withLock { s -> (Bool, TransferProgress?) in
            if s.result != nil { return (true, nil) }
            s.progress[key] = continuation
            return (false, s.lastProgress)
        }
        if let last { continuation.yield(last) }
        if finished { continuation.finish() }
        return stream
    }

    /// The task's events from now on, ending with ``Event/finished(_:)``. Each access makes a
    /// new stream; accessed after the task finished, it yields only the final event.
    public var events: AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
        let key = SubscriberIDs.next()
        let finished = storage.withLock { s -> Result<ImageResponse, ImagePipeline.Error>? in
            if let result = s.result { return result }
            s.events[key] = continuation
            return nil
        }
        if let finished {
            continuation.yield(.finished(finished))
            continuation.finish()
        }
        return stream
    }

    /// `ImageTask(<id>, <state>)`; never includes the URL.
    public var description: String { "ImageTask(\(id), \(state))" }

    /// Tasks are equal only to themselves (identity).
    public static func == (lhs: ImageTask, rhs: ImageTask) -> Bool { lhs === rhs }
    /// Hashes the task's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    // MARK: - Driven by the pipeline

    func setCallbacks(
        queue: DispatchQueue, progress: (@Sendable (TransferProgress) -> Void)?,
        completion: @escaping @Sendable (Result<ImageResponse, ImagePipeline.Error>) -> Void
    ) {
        storage.withLock { $0.callbacks = Callbacks(queue: queue, progress: progress, completion: completion) }
    }

    /// Starts `body` in a new Swift task and finishes with its outcome.
    func start(_ body: @escaping @Sendable (ImageTask) async throws -> ImageResponse) {
        let work = Task { [self] in
            do {
                finish(.success(try await body(self)))
            } catch {
                finish(.failure(ImagePipeline.Error(error)))
            }
        }
        let cancelled = storage.withLock { s -> Bool in
            s.work = work
            return s.result != nil
        }
        if cancelled { work.cancel() }
    }

    func didProgress(_ progress: TransferProgress) {
        let (streams, events, callbacks) = storage.withLock { s in
            s.lastProgress = progress
            return (Array(s.progress.values), Array(s.events.values), s.callbacks)
        }
        for stream in streams { stream.yield(progress) }
        for stream in events { stream.yield(.progress(progress)) }
        if let callbacks, let handler = callbacks.progress {
            callbacks.queue.async { handler(progress) }
        }
    }

    private func emit(_ event: Event) {
        let events = storage.withLock { Array($0.events.values) }
        for stream in events { stream.yield(event) }
    }

    private func finish(_ result: Result<ImageResponse, ImagePipeline.Error>) {
        let taken = storage.withLock { s -> Storage? in
            guard s.result == nil else { return nil }
            s.result = result
            let taken = s
            s.waiters.removeAll()
            s.events.removeAll()
            s.progress.removeAll()
            s.callbacks = nil
            s.work = nil
            return taken
        }
        guard let taken else { return }
        for waiter in taken.waiters.values { waiter.resume(with: result.mapError { $0 }) }
        for stream in taken.progress.values { stream.finish() }
        for stream in taken.events.values {
            stream.yield(.finished(result))
            stream.finish()
        }
        if let callbacks = taken.callbacks {
            callbacks.queue.async { callbacks.completion(result) }
        }
    }
}
