import Dispatch
import Foundation
import Synchronization

/// Loads images through the memory cache, the disk cache and the network, decodes and processes
/// them, and shares the work between every caller of the same request at every stage.
///
/// ```swift
/// let pipeline = ImagePipeline(configuration: configuration)
/// let response = try await pipeline.image(for: ImageRequest(url: url, thumbnail: ThumbnailOptions(width: 256)))
/// print(response.cacheLayer, response.image.width)
/// ```
///
/// - One fetch runs per data key (the cache-key hook's result), one decode per data key and
///   thumbnail, one processing per processor chain, one encoded result
///   (``encodedResult(for:)``) per encoded key; chains on one URL share the fetch and the
///   decode. Shared work runs at the highest priority of its callers and is cancelled only when
///   its last caller cancels.
/// - Decoding, processing and encoding run on bounded queues
///   (``Configuration/decodingQueueWidth``, ``Configuration/processingQueueWidth``) off the
///   Swift cooperative pool.
///
/// - Important: `ImagePipeline` is thread-safe; call it from any task or thread.
public final class ImagePipeline: Sendable {
    /// What the pipeline was built from.
    public let configuration: Configuration
    /// This pipeline's number, under which requests keep the keys it computed for them.
    let number = PipelineNumber.next()

    let fetches = SharedWorkPool<FetchKey, FetchOutput>()
    let decodes = SharedWorkPool<DecodeKey, StageOutput>()
    let processings = SharedWorkPool<ProcessKey, StageOutput>()
    let loads = SharedWorkPool<LoadKey, StageOutput>()
    let encodedResults = SharedWorkPool<EncodedResultKey, EncodedResultResponse>()
    let decodeQueue: WorkQueue
    let processQueue: WorkQueue
    let counters = Mutex(Statistics())
    /// ``Configuration/imageCache`` when it is an ``ImageCache``, read without a protocol call or
    /// a reference count (see ``memoryImage(for:)``). Unretained: ``configuration`` holds it for
    /// the pipeline's lifetime. What it buys is in the benchmark suite's memory-hit rows
    /// (`pipeline.memory-hit.vs-dict`, target M6, and its key-only row).
    let imageCache: Unmanaged<ImageCache>?
    let sharedTier: SharedTier?
    /// Background revalidations no caller waits for (``waitForBackgroundRevalidations()``).
    let backgroundWork = BackgroundWork()

    /// Creates a pipeline.
    ///
    /// - Parameter configuration: the caches, loader, decoder, renderer, queue widths and policies;
    ///   kept as ``configuration``.
    public init(configuration: Configuration) {
        self.configuration = configuration
        imageCache = (configuration.imageCache as? ImageCache).map { Unmanaged.passUnretained($0) }
        sharedTier = configuration.sharedCache.map {
            SharedTier(cache: $0, policy: configuration.sharedCachePolicy, logger: configuration.logger)
        }
        let waitObserver = configuration.stageObserver.map { observer in { @Sendable (wait: Duration) in observer(.queue, wait) } }
        decodeQueue = WorkQueue(width: configuration.decodingQueueWidth, label: "pictor.pipeline.decode", waitObserver: waitObserver)
        processQueue = WorkQueue(width: configuration.processingQueueWidth, label: "pictor.pipeline.process", waitObserver: waitObserver)
    }

    /// Creates a pipeline from `configuration` changed by `configure`.
    ///
    /// ```swift
    /// let pipeline = ImagePipeline(configuration: base) { $0.diskCachePolicy = .both }
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: the configuration to start from.
    ///   - configure: changes applied to a copy of `configuration` before the pipeline is made.
    public convenience init(configuration: Configuration, _ configure: (inout Configuration) -> Void) {
        var configuration = configuration
        configure(&configuration)
        self.init(configuration: configuration)
    }

    /// A snapshot of the pipeline's counters.
    public var statistics: Statistics {
        let shared = sharedTier?.statistics ?? SharedCacheStatistics()
        return counters.withLock { counters in
            var snapshot = counters
            snapshot.sharedCache = shared
            return snapshot
        }
    }

    /// Adds the shared-tier counters not yet recorded to the fleet's
    /// (``SharedDataCache/record(_:)``) and waits for it: call it before a process exits. The
    /// pipeline also records them itself, at most once per
    /// ``SharedCachePolicy/statisticsInterval``. Does nothing without a
    /// ``Configuration/sharedCache``; a failure is not reported (the counters are sent again
    /// with the next record).
    public func recordSharedCacheStatistics() async {
        await sharedTier?.recordStatistics()
    }

    /// The final image for `request` if the memory cache has it, answered synchronously.
    ///
    /// Respects ``ImageRequest/Options/disableMemoryCacheReads`` and
    /// ``ImageRequest/Options/reloadIgnoringCachedData`` (both return `nil`).
    ///
    /// - Parameter request: the request whose final image (thumbnail and processors applied) is
    ///   looked up.
    public func cachedImage(for request: ImageRequest) -> Image? {
        guard readsMemory(request), imageCache != nil || configuration.imageCache != nil else { return nil }
        if let kept = request.keyMemo.firstKeys(for: number) {
            // Valid while `request` (which holds the memo) is.
            return kept._withUnsafeGuaranteedRef { memoryImage(for: $0.imageKey) }
        }
        return memoryImage(for: cacheKeys(for: request).imageKey)
    }

    /// The key of `request`'s final image in the memory cache (and of its processed variant on
    /// disk): the data key followed by the thumbnail's and processors' identifiers.
    ///
    /// - Parameter request: the request to compute the key of; nothing is loaded.
    public func imageCacheKey(for request: ImageRequest) -> ImageCacheKey {
        if let kept = request.keyMemo.firstKeys(for: number) { return kept._withUnsafeGuaranteedRef { $0.imageKey } }
        return cacheKeys(for: request).imageKey
    }

    /// The key of `request`'s original bytes in the disk cache (the cache-key hook's result).
    ///
    /// - Parameter request: the request to compute the key of; nothing is loaded.
    public func dataCacheKey(for request: ImageRequest) -> String {
        cacheKeys(for: request).dataKey
    }

    /// `request`'s keys under this pipeline's hook: kept with the request after the first
    /// call (see ``RequestKeyMemo``), so repeated lookups of one request cost no hashing.
    func cacheKeys(for request: ImageRequest) -> RequestCacheKeys {
        // The first pipeline's keys without forming the closure (whose context retains `self`
        // and the request).
        if let kept = request.keyMemo.firstKeys(for: number) { return kept.takeUnretainedValue() }
        // The hook alone, not the whole configuration: copying that retains every reference in it.
        let hook = configuration.cacheKey
        return request.keyMemo.keys(for: number) { RequestCacheKeys(request, cacheKey: hook, pipeline: number) }
    }

    /// Loads the final image for `request`: memory cache, then disk (processed variant by
    /// policy, then the original), then network; decoded and processed.
    ///
    /// Cancelling the calling task cancels this caller; the shared work stops only when no
    /// other caller waits for it.
    ///
    /// - Parameter request: what to load: the URL, thumbnail, processors, priority and cache
    ///   options.
    /// - Returns: the image, the layer that served it and the metrics.
    /// - Throws: ``Error/loadingFailed(_:)``, ``Error/decodingFailed(_:)``,
    ///   ``Error/processingFailed(processor:underlying:)``, or ``Error/cancelled``.
    public func image(for request: ImageRequest) async throws(Error) -> ImageResponse {
        let prepared = PreparedRequest(request, pipeline: self)
        if let hit = memoryHit(prepared) { return hit }
        return try await load(prepared, priority: PriorityHandle.fixed(request.priority), progress: nil, start: ContinuousClock.now)
    }

    /// Loads the image at `url` with no thumbnail, no processors and default options:
    /// `image(for: ImageRequest(url: url))`.
    ///
    /// ```swift
    /// let response = try await pipeline.image(for: URL(string: "https://example.org/a.jpg")!)
    /// ```
    ///
    /// - Returns: the decoded image, the layer that served it and the metrics.
    /// - Throws: as the `ImageRequest` form: ``Error/loadingFailed(_:)``,
    ///   ``Error/decodingFailed(_:)`` or ``Error/cancelled``.
    public func image(for url: URL) async throws(Error) -> ImageResponse {
        try await image(for: ImageRequest(url: url))
    }

    /// Fetches the original encoded bytes for `request` (disk cache, then network) without
    /// decoding them. The request's thumbnail and processors are ignored; its cache options
    /// apply. Shares the fetch with image requests for the same data key.
    ///
    /// - Parameter request: what to fetch; only its URL (through the cache-key hook), priority and
    ///   cache options are used.
    /// - Throws: ``Error/loadingFailed(_:)`` or ``Error/cancelled``.
    public func data(for request: ImageRequest) async throws(Error) -> ImageDataResponse {
        try await performData(request, priority: PriorityHandle.fixed(request.priority))
    }

    /// Fetches the original encoded bytes at `url` with default options, without decoding
    /// them: `data(for: ImageRequest(url: url))`.
    ///
    /// - Throws: ``Error/loadingFailed(_:)`` or ``Error/cancelled``.
    public func data(for url: URL) async throws(Error) -> ImageDataResponse {
        try await data(for: ImageRequest(url: url))
    }

    /// Starts loading `request` and returns its task at once: cancel it, change its priority,
    /// observe its progress and events, or await its response.
    ///
    /// - Parameter request: what to load.
    public func imageTask(for request: ImageRequest) -> ImageTask {
        let task = ImageTask(request: request, previewKinds: previewKinds(request))
        task.start { [self] task in
            try await self.perform(
                request, priority: task.priorityHandle, progress: { task.didProgress($0) },
                previews: task.previewKinds.isEmpty ? nil : task)
        }
        return task
    }

    /// Starts loading `request` and calls `completion` once on `queue` with the result (and
    /// `progress` on `queue` as bytes arrive).
    ///
    /// - Parameters:
    ///   - request: what to load.
    ///   - queue: where callbacks run. Default: a global queue (Linux programs rarely service
    ///     the main queue; pass `.main` from an app that does).
    ///   - progress: called on `queue` with the transfer's progress as bytes arrive; `nil` (the
    ///     default) for none. Memory and disk hits report none.
    ///   - completion: called once on `queue` with the response or the error.
    /// - Returns: the task, to cancel it or change its priority. A cancelled task completes with
    ///   ``Error/cancelled``.
    @discardableResult
    public func loadImage(
        with request: ImageRequest,
        queue: DispatchQueue = .global(),
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<ImageResponse, Error>) -> Void
    ) -> ImageTask {
        let task = ImageTask(request: request, previewKinds: previewKinds(request))
        task.setCallbacks(queue: queue, progress: progress, completion: completion)
        task.start { [self] task in
            try await self.perform(
                request, priority: task.priorityHandle, progress: { task.didProgress($0) },
                previews: task.previewKinds.isEmpty ? nil : task)
        }
        return task
    }

    /// Callers waiting for whole image loads (for tests: wait until requests have joined).
    var waitingCallerCount: Int { loads.subscriberCount }

    /// Whether no work runs at any stage (for tests).
    var isIdle: Bool { encodedResults.count + loads.count + processings.count + decodes.count + fetches.count == 0 }

    /// The previews a task of `request` takes (the pipeline's or the request's opt-ins; the
    /// incremental kind implies the progressive one); empty for none.
    func previewKinds(_ request: ImageRequest) -> ImagePreviewKinds {
        var kinds: ImagePreviewKinds = []
        if configuration.isIncrementalDecodingEnabled || request.options.contains(.incrementalPreviews) {
            kinds = [.progressive, .incremental]
        } else if configuration.isProgressiveDecodingEnabled || request.options.contains(.progressivePreviews) {
            kinds = .progressive
        }
        return kinds
    }

    func readsMemory(_ request: ImageRequest) -> Bool {
        !request.options.contains(.reloadIgnoringCachedData) && !request.options.contains(.disableMemoryCacheReads)
    }

    /// Logs a request event; the URL appears only when the logger reveals URLs.
    func log(_ level: PictorLog.Level, _ request: ImageRequest, _ message: @autoclosure () -> String) {
        let logger = configuration.logger
        logger.log(level, "\(logger.revealsURLs ? (request.url?.absoluteString ?? "request") : "request"): \(message())")
    }
}
