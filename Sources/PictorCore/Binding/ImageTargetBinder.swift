import Dispatch
import Foundation
import Synchronization

/// Loads images into one ``ImageLoadingTarget`` the way a reused view needs: each new request
/// cancels the previous one, a memory-cache hit is shown synchronously, a placeholder is shown
/// otherwise, and only the latest request may set the image.
///
/// ```swift
/// let binder = ImageTargetBinder(target: cell, pipeline: pipeline, deliveryQueue: .main)
/// binder.setImage(with: ImageRequest(url: url), placeholder: grey, failureImage: broken)
/// ```
///
/// - Important: thread-safe. The binder holds its target weakly; a target that went away
///   receives nothing.
public final class ImageTargetBinder<Target: ImageLoadingTarget>: Sendable {
    private struct State {
        weak var target: Target?
        var generation = 0
        var task: ImageTask?
    }

    /// The pipeline that loads.
    public let pipeline: ImagePipeline
    /// Where results are delivered to the target; default a global queue.
    public let deliveryQueue: DispatchQueue
    private let state: Mutex<State>

    /// Creates a binder for `target`.
    ///
    /// - Parameters:
    ///   - target: the view or slot to load into; held weakly.
    ///   - pipeline: the pipeline that loads.
    ///   - deliveryQueue: where the target and completions are called; a global queue by default,
    ///     `.main` for UI targets.
    public init(target: Target, pipeline: ImagePipeline, deliveryQueue: DispatchQueue = .global()) {
        self.pipeline = pipeline
        self.deliveryQueue = deliveryQueue
        self.state = Mutex(State(target: target))
    }

    /// The load in flight for the target, if any.
    public var currentTask: ImageTask? { state.withLock { $0.task } }

    /// Loads `request` into the target, replacing whatever it showed or was loading.
    ///
    /// - Parameters:
    ///   - request: what to show; `nil` cancels the current load and shows the placeholder.
    ///   - placeholder: shown at once unless the memory cache answers; `nil` clears the target.
    ///   - failureImage: shown if the load fails (not if it is cancelled); `nil` leaves the
    ///     placeholder.
    ///   - completion: called on ``deliveryQueue`` with the outcome of this request, unless a
    ///     newer request replaced it first (then it is called with ``ImagePipeline/Error/cancelled``).
    /// - Returns: the task loading the image, or `nil` when the memory cache answered at once
    ///   (the target already shows the image) or `request` was `nil`.
    @discardableResult
    public func setImage(
        with request: ImageRequest?, placeholder: Image? = nil, failureImage: Image? = nil,
        completion: (@Sendable (Result<ImageResponse, ImagePipeline.Error>) -> Void)? = nil
    ) -> ImageTask? {
        let (previous, generation) = state.withLock { s -> (ImageTask?, Int) in
            s.generation += 1
            defer { s.task = nil }
            return (s.task, s.generation)
        }
        previous?.cancel()
        guard let request else {
            show(placeholder, phase: .placeholder, generation: generation)
            return nil
        }
        if let image = pipeline.cachedImage(for: request) {
            let response = ImageResponse(image: image, request: request, cacheLayer: .memory)
            show(image, phase: .success(response), generation: generation)
            if let completion { deliveryQueue.async { completion(.success(response)) } }
            return nil
        }
        show(placeholder, phase: .placeholder, generation: generation)
        let task = pipeline.loadImage(with: request, queue: deliveryQueue) { [weak self] result in
            self?.deliver(result, generation: generation, failureImage: failureImage)
            completion?(result)
        }
        let stale = state.withLock { s -> Bool in
            guard s.generation == generation else { return true }
            s.task = task
            return false
        }
        if stale { task.cancel() }
        return task
    }

    /// Cancels the current load; the target keeps what it shows.
    public func cancel() {
        let task = state.withLock { s -> ImageTask? in
            s.generation += 1
            defer { s.task = nil }
            return s.task
        }
        task?.cancel()
    }

    /// Shows `image` if no newer request replaced the one of `generation`.
    private func show(_ image: Image?, phase: ImageLoadingPhase, generation: Int) {
        state.withLock { s in
            guard s.generation == generation else { return }
            s.target?.display(image, phase: phase)
        }
    }

    private func deliver(_ result: Result<ImageResponse, ImagePipeline.Error>, generation: Int, failureImage: Image?) {
        state.withLock { s in
            guard s.generation == generation else { return }
            s.task = nil
            switch result {
            case .success(let response): s.target?.display(response.image, phase: .success(response))
            case .failure(.cancelled): break
            case .failure(let error): if let failureImage { s.target?.display(failureImage, phase: .failure(error)) }
            }
        }
    }
}
