import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What to load and how: the source (a URL or a full `URLRequest`), the thumbnail to decode at,
/// the processors to apply, the priority and the cache options.
///
/// ```swift
/// let request = ImageRequest(url: url, thumbnail: ThumbnailOptions(width: 256), priority: .high)
/// let response = try await pipeline.image(for: request)
/// ```
public struct ImageRequest: Sendable, CustomStringConvertible {
    /// Every property, in one shared box: copying a request (into an array, a task, a job) is
    /// one reference count, whatever it carries; a change copies the box first when another
    /// request shares it.
    private var storage: ImageRequestStorage

    /// The request sent on a cache miss. Its URL (after the pipeline's cache-key hook) identifies
    /// the image in both caches.
    public var urlRequest: URLRequest {
        get { storage.urlRequest }
        set {
            let box = uniqueStorage(resettingKeys: true)
            box.urlRequest = newValue
            box.url = newValue.url
        }
    }
    /// The URL loaded (``urlRequest``'s), kept beside it so cache lookups don't go through
    /// `URLRequest`'s storage.
    public var url: URL? { storage.url }
    /// Processors applied in order after decoding. Each one's identifier enters the cache key. A
    /// leading processor with a ``ImageProcessing/decodeTimeThumbnail`` is done by the decoder
    /// (shrink-on-load) when ``thumbnail`` is `nil`.
    public var processors: [any ImageProcessing] {
        get { storage.processors }
        set { uniqueStorage(resettingKeys: true).processors = newValue }
        _modify {
            let box = uniqueStorage(resettingKeys: true)
            yield &box.processors
        }
    }
    /// Decode at this size (shrink-on-load) instead of full size; `nil` (the default) decodes
    /// full size.
    public var thumbnail: ThumbnailOptions? {
        get { storage.thumbnail }
        set { uniqueStorage(resettingKeys: true).thumbnail = newValue }
    }
    /// The priority of this request; shared work runs at the highest priority of its callers.
    /// Default ``RequestPriority/normal``.
    public var priority: RequestPriority {
        get { storage.priority }
        set { uniqueStorage(resettingKeys: false).priority = newValue }
    }
    /// Cache and loading options; default none (every cache read and written).
    public var options: Options {
        get { storage.options }
        set { uniqueStorage(resettingKeys: false).options = newValue }
    }
    /// Caller-defined values carried with the request; the pipeline ignores them (the cache-key
    /// hook may read them).
    public var userInfo: [String: any Sendable] {
        get { storage.userInfo }
        set { uniqueStorage(resettingKeys: true).userInfo = newValue }
        _modify {
            let box = uniqueStorage(resettingKeys: true)
            yield &box.userInfo
        }
    }
    /// The cache keys a pipeline computed for this request (see ``RequestKeyMemo``); replaced
    /// whenever a property they depend on changes.
    var keyMemo: RequestKeyMemo { storage.keyMemo }

    /// The box, copied first when another request shares it; with `resettingKeys` (the change
    /// is to something the keys depend on), always a new box with a new, empty key memo.
    private mutating func uniqueStorage(resettingKeys: Bool) -> ImageRequestStorage {
        if resettingKeys {
            storage = storage.copy(keyMemo: RequestKeyMemo())
        } else if !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy(keyMemo: storage.keyMemo)
        }
        return storage
    }

    /// Creates a request for `url`; see each property for its default.
    ///
    /// - Parameters:
    ///   - url: the image to load: `http`, `https`, `file` or `data`.
    ///   - processors: applied in order after decoding; none by default.
    ///   - thumbnail: the size to decode at; `nil` (full size) by default.
    ///   - priority: ``RequestPriority/normal`` by default.
    ///   - options: cache and loading options; none by default.
    ///   - userInfo: values carried with the request for the cache-key hook; empty by default.
    public init(
        url: URL, processors: [any ImageProcessing] = [], thumbnail: ThumbnailOptions? = nil,
        priority: RequestPriority = .normal, options: Options = [], userInfo: [String: any Sendable] = [:]
    ) {
        self.init(urlRequest: URLRequest(url: url), processors: processors, thumbnail: thumbnail,
                  priority: priority, options: options, userInfo: userInfo)
    }

    /// Creates a request from a full `URLRequest` (method, headers, timeout); see each property
    /// for its default.
    ///
    /// - Parameters:
    ///   - urlRequest: the request sent on a cache miss (method, headers, timeout).
    ///   - processors: applied in order after decoding; none by default.
    ///   - thumbnail: the size to decode at; `nil` (full size) by default.
    ///   - priority: ``RequestPriority/normal`` by default.
    ///   - options: cache and loading options; none by default.
    ///   - userInfo: values carried with the request for the cache-key hook; empty by default.
    public init(
        urlRequest: URLRequest, processors: [any ImageProcessing] = [], thumbnail: ThumbnailOptions? = nil,
        priority: RequestPriority = .normal, options: Options = [], userInfo: [String: any Sendable] = [:]
    ) {
        storage = ImageRequestStorage(
            urlRequest: urlRequest, processors: processors, thumbnail: thumbnail,
            priority: priority, options: options, userInfo: userInfo)
    }

    /// Whether the request decodes at a thumbnail size or applies processors (so its final
    /// image differs from the plain decode of the original bytes).
    public var isProcessed: Bool { thumbnail != nil || !processors.isEmpty }

    /// `ImageRequest(<thumbnail>, <n> processors)`; never includes the URL.
    public var description: String {
        "ImageRequest(thumbnail: \(thumbnail?.identifier ?? "none"), processors: \(processors.map(\.identifier)))"
    }
}

extension ImageRequest {
    /// Per-request cache and loading options.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The option bits.
        public let rawValue: UInt16
        /// Creates options from their raw bits.
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        /// Skip every cache read (memory and disk) and load from the network; results are still
        /// stored unless writes are disabled too.
        public static let reloadIgnoringCachedData = Options(rawValue: 1 << 0)
        /// Never use the network: serve from a cache or fail with
        /// ``ImagePipeline/Error/loadingFailed(_:)`` wrapping ``DataLoadingError/notCached``.
        public static let returnCacheDataDontLoad = Options(rawValue: 1 << 1)
        /// Do not read the memory cache.
        public static let disableMemoryCacheReads = Options(rawValue: 1 << 2)
        /// Do not store the result in the memory cache.
        public static let disableMemoryCacheWrites = Options(rawValue: 1 << 3)
        /// Do not read the disk cache (original or processed variant).
        public static let disableDiskCacheReads = Options(rawValue: 1 << 4)
        /// Do not write the disk cache (neither the original nor a processed variant).
        public static let disableDiskCacheWrites = Options(rawValue: 1 << 5)

        /// Fetch the original bytes (into the disk cache, by policy) without decoding them:
        /// ``ImagePipeline/image(for:)-(ImageRequest)`` then answers with a 1×1 transparent placeholder image,
        /// the layer, and ``ImageTaskMetrics/originalByteCount``; a memory hit still returns the
        /// cached image. ``ImagePipeline/data(for:)-(ImageRequest)`` is the direct way to get the bytes.
        public static let skipDecode = Options(rawValue: 1 << 6)

        /// Deliver previews while the bytes arrive (``ImageTask/previews``), even when the
        /// pipeline's ``ImagePipeline/Configuration/isProgressiveDecodingEnabled`` is off.
        /// Only tasks (``ImagePipeline/imageTask(for:)``) deliver them.
        public static let progressivePreviews = Options(rawValue: 1 << 7)

        /// Deliver incremental previews too (``ImagePreviewKinds/incremental``): the rows
        /// decoded so far of a baseline (sequential) JPEG or a PNG, the rest mid-grey (or
        /// transparent where the image has alpha), and a coarse whole image per Adam7 pass of
        /// an interlaced PNG; implies ``progressivePreviews``. Off unless set here or by the
        /// pipeline's ``ImagePipeline/Configuration/isIncrementalDecodingEnabled``: each such
        /// preview costs a copy (and a resample) of the image so far.
        public static let incrementalPreviews = Options(rawValue: 1 << 8)

        /// Alias of ``returnCacheDataDontLoad``: caches only, never the network.
        public static let cacheOnly: Options = .returnCacheDataDontLoad
        /// Keep the result in memory only: ``disableDiskCacheWrites``.
        public static let memoryOnly: Options = .disableDiskCacheWrites
    }
}
