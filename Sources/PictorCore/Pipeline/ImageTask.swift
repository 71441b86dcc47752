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
    /// ``finished(_:)``; after a response made from stale bytes
    /// (``ImageResponse/isRevalidatingInBackground``), at most one ``updated(_:)`` follows
    /// before the stream ends.
    public enum Event: Sendable {
        /// Bytes arrived from the network.
        case progress(TransferProgress)
        /// The task's priority changed.
        case priorityChanged(RequestPriority)
        /// The task completed, failed or was cancelled (then with ``ImagePipeline/Error/cancelled``).
        case finished(Result<ImageResponse, ImagePipeline.Error>)
        /// The task's response was made from a cache's stale bytes, and their background
        /// revalidation brought a new image: this is its response. The cached image was
        /// replaced by it in every tier; ``ImageTask/response`` stays the one delivered first.
        /// Never sent after a 304 or when the server sent the same bytes, nor when the task is
        /// cancelled first.
        case updated(ImageResponse)
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
        var previews: [Int: AsyncStream<ImageResponse>.Continuation] = [:]
        var callbacks: Callbacks?
        var lastProgress: TransferProgress?
        /// Whether the event streams stay open after the result, for ``Event/updated(_:)``.
        var awaitsUpdate = false
    }

    /// A process-wide unique identifier.
    public let id: Int
    /// The request this task loads.
    public let request: ImageRequest
    /// The previews this task takes (the request's and the pipeline's opt-ins); empty for none.
    let previewKinds: ImagePreviewKinds
    let priorityHandle: PriorityHandle
    private let storage = Mutex(Storage())

    init(request: ImageRequest, previewKinds: ImagePreviewKinds = []) {
        self.id = SubscriberIDs.next()
        self.request = request
        self.previewKinds = previewKinds
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
    /// completed); the work stops when no other caller needs it. A completed task whose events
    /// wait for ``Event/updated(_:)`` ends them at once (the revalidation still refreshes the
    /// caches).
    public func cancel() {
        let work = storage.withLock { $0.result == nil ? $0.work : nil }
        finish(.failure(.cancelled))
        work?.cancel()
        closeEvents(updated: nil)
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

    /// Previews from now on, while the bytes arrive, finishing when the task completes (before
    /// ``response`` returns): each an ``ImageResponse`` with ``ImageResponse/isPreview`` set,
    /// more detailed than the one before. For a progressive JPEG, one each time a scan
    /// completes, at most one per ``ImagePipeline/Configuration/previewInterval``, decoded at
    /// the request's thumbnail size (or the DCT scale just above it) without processors. Made
    /// only for a download (never from a cache), when the pipeline's
    /// ``ImagePipeline/Configuration/isProgressiveDecodingEnabled`` or the request's
    /// ``ImageRequest/Options/progressivePreviews`` asks. With
    /// ``ImagePipeline/Configuration/isIncrementalDecodingEnabled`` or
    /// ``ImageRequest/Options/incrementalPreviews`` (off by default), also for a baseline JPEG
    /// or a PNG: the rows decoded so far, each time more have arrived, the rest mid-grey
    /// (transparent where the image has alpha), and for an interlaced PNG a coarse whole image
    /// per Adam7 pass; every preview has the final image's size. A download shared with other
    /// tasks is previewed once for all of them, when the task that started it asked, and each
    /// task takes only the kinds (``ImagePreviewKinds``) it asked for. Never cached, never
    /// delivered after the final image. Each access makes a new stream, which keeps only the
    /// newest preview its consumer has not taken yet: a preview a newer one replaced is
    /// worthless, and a slow consumer must not hold many full-size images. A consumer that
    /// reads only after the task ends gets at most one, the newest.
    ///
    /// ```swift
    /// let task = pipeline.imageTask(for: ImageRequest(url: url, options: [.progressivePreviews]))
    /// Task { for await preview in task.previews { show(preview.image) } }
    /// show(try await task.image)
    /// ```
    public var previews: AsyncStream<ImageResponse> {
        let (stream, continuation) = AsyncStream.makeStream(of: ImageResponse.self, bufferingPolicy: .bufferingNewest(1))
        let key = SubscriberIDs.next()
        let finished = storage.withLock { s -> Bool in
            if s.result != nil { return true }
            s.previews[key] = continuation
            return false
        }
        if finished { continuation.finish() }
        return stream
    }

    /// The task's events from now on, ending with ``Event/finished(_:)`` (or, after a stale
    /// response, the ``Event/updated(_:)`` that may follow it). Each access makes a new
    /// stream; accessed after the task finished, it yields the final event, then the update
    /// if one is still awaited.
    public var events: AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
        let key = SubscriberIDs.next()
        let closed = storage.withLock { s -> Bool in
            guard let result = s.result else {
                s.events[key] = continuation
                return false
            }
            // Yielded under the lock, so that an update sent meanwhile comes after it.
            continuation.yield(.finished(result))
            if s.awaitsUpdate { s.events[key] = continuation }
            return !s.awaitsUpdate
        }
        if closed { continuation.finish() }
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

    /// Starts `body` in a new Swift task and finishes with its outcome; a response made from
    /// stale bytes keeps the event streams open until its background revalidation ends.
    func start(_ body: @escaping @Sendable (ImageTask) async throws -> ImageResponse) {
        let work = Task { [self] in
            do {
                let response = try await body(self)
                guard let revalidation = response.revalidation else {
                    finish(.success(response))
                    return
                }
                finish(.success(response), awaitingUpdate: true)
                closeEvents(updated: await revalidation.updated)
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

    /// A preview reached the task: yielded to its preview streams unless the task finished.
    /// Yielded under the lock that ``finish(_:)`` sets the result under, so a preview either
    /// precedes the result or is dropped.
    func didPreview(_ image: Image) {
        storage.withLock { s in
            guard s.result == nil, !s.previews.isEmpty else { return }
            let preview = ImageResponse(image: image, request: request, cacheLayer: .network, isPreview: true)
            for stream in s.previews.values { stream.yield(preview) }
        }
    }

    private func emit(_ event: Event) {
        let events = storage.withLock { Array($0.events.values) }
        for stream in events { stream.yield(event) }
    }

    /// Completes the task with `result`; with `awaitingUpdate`, the event streams get
    /// ``Event/finished(_:)`` but stay open for ``closeEvents(updated:)``.
    private func finish(_ result: Result<ImageResponse, ImagePipeline.Error>, awaitingUpdate: Bool = false) {
        let taken = storage.withLock { s -> Storage? in
            guard s.result == nil else { return nil }
            s.result = result
            // Ended here, with the result: no preview can be yielded after it.
            for stream in s.previews.values { stream.finish() }
            s.previews.removeAll()
            let taken = s
            s.waiters.removeAll()
            s.progress.removeAll()
            s.callbacks = nil
            s.work = nil
            if awaitingUpdate {
                // Under the lock: an update, or a cancellation's close, comes after it.
                for stream in s.events.values { stream.yield(.finished(result)) }
                s.awaitsUpdate = true
            } else {
                s.events.removeAll()
            }
            return taken
        }
        guard let taken else { return }
        for waiter in taken.waiters.values { waiter.resume(with: result.mapError { $0 }) }
        for stream in taken.progress.values { stream.finish() }
        if !awaitingUpdate {
            for stream in taken.events.values {
                stream.yield(.finished(result))
                stream.finish()
            }
        }
        if let callbacks = taken.callbacks {
            callbacks.queue.async { callbacks.completion(result) }
        }
    }

    /// Ends event streams kept open after a stale response, with `updated` first when the
    /// revalidation brought a new image. Does nothing when none are kept open.
    private func closeEvents(updated: ImageResponse?) {
        let streams = storage.withLock { s -> [AsyncStream<Event>.Continuation] in
            guard s.awaitsUpdate else { return [] }
            s.awaitsUpdate = false
            let streams = Array(s.events.values)
            s.events.removeAll()
            return streams
        }
        for stream in streams {
            if let updated { stream.yield(.updated(updated)) }
            stream.finish()
        }
    }
}

/// An image task takes previews for itself: it is the top of the stages' preview chain.
extension ImageTask: PreviewTarget {
    func deliverPreview(_ preview: Image, kind: ImagePreviewKinds) {
        if previewKinds.contains(kind) { didPreview(preview) }
    }
    var wantedPreviews: ImagePreviewKinds { state == .running ? previewKinds : [] }
}
