import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The identity of a fetch of original bytes: exactly what the bytes depend on, the data key,
/// and which tiers may answer. Whether the result is written to disk is not part of it
/// (callers that differ only there share one fetch; see ``FetchOutput/storedToDisk``).
/// The data key compares by its UTF-8 bytes (see `String.hasSameBytes(as:)`).
struct FetchKey: Hashable, Sendable {
    /// Which tiers may answer.
    enum Mode: Hashable, Sendable {
        /// The caches, then the network.
        case normal
        /// The network only (a reload, or after a cached entry failed to decode).
        case reload
        /// The caches only.
        case cacheOnly
        /// The caches, then the network even when a stale entry could answer at once: the
        /// background revalidation of a stale answer (``FetchResult/revalidatesInBackground``),
        /// one per data key however many stale answers asked for it.
        case revalidate
    }

    let dataKey: String
    let mode: Mode
    /// The data key's hash, computed once: a fetch job's key is hashed at every lookup of its
    /// pool (join, insert, remove), and a URL's worth of bytes costs about 300 instructions
    /// each time (`pipeline.bookkeeping.instant-transport` in the benchmark suite).
    private let dataKeyHash: Int

    init(dataKey: String, mode: Mode) {
        self.dataKey = dataKey
        self.mode = mode
        var hasher = Hasher()
        dataKey.hashBytes(into: &hasher)
        dataKeyHash = hasher.finalize()
    }

    var readsCaches: Bool { mode != .reload }
    var isCacheOnly: Bool { mode == .cacheOnly }

    /// The same fetch, but skipping the caches (after a cached entry failed to decode).
    var reloading: FetchKey { FetchKey(dataKey: dataKey, mode: .reload) }

    static func == (lhs: FetchKey, rhs: FetchKey) -> Bool {
        lhs.mode == rhs.mode && lhs.dataKey.hasSameBytes(as: rhs.dataKey)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(dataKeyHash)
        hasher.combine(mode)
    }
}

/// The identity of a decode: the fetch it decodes, the thumbnail it decodes at, and whether its
/// fetch is asked to write the original to disk (so that a caller who wants it written never
/// shares the decode, and with it the fetch subscription, of one who does not).
struct DecodeKey: Hashable, Sendable {
    let fetch: FetchKey
    let thumbnail: ThumbnailOptions?
    let storesOriginal: Bool
}

/// The identity of one processing step: the decode and the identifiers of the chain so far
/// (compared by their UTF-8 bytes).
struct ProcessKey: Hashable, Sendable {
    let decode: DecodeKey
    let processors: [String]

    static func == (lhs: ProcessKey, rhs: ProcessKey) -> Bool {
        lhs.decode == rhs.decode && lhs.processors.count == rhs.processors.count
            && zip(lhs.processors, rhs.processors).allSatisfy { $0.hasSameBytes(as: $1) }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(decode)
        hasher.combine(processors.count)
        for identifier in processors { identifier.hashBytes(into: &hasher) }
    }
}

/// The identity of a whole image load: the memory-cache key, the fetch and the options that
/// change what the load does.
struct LoadKey: Hashable, Sendable {
    let image: ImageCacheKey
    let fetch: FetchKey
    let options: ImageRequest.Options
}

/// The identity of an encoded result (``ImagePipeline/encodedResult(for:)``): its disk key
/// (the image key, format and quality; compared by its UTF-8 bytes), the request options that
/// change what the job does (which tiers it reads, whether it writes), and the caller's limits,
/// so that no caller gets an outcome made under other rules than its own.
struct EncodedResultKey: Hashable, Sendable {
    let key: ByteString
    let options: ImageRequest.Options
    let maximumDimension: Int?
    let maximumSourceByteCount: Int?

    init(_ key: String, _ request: EncodedResultRequest) {
        self.key = ByteString(key)
        options = request.imageRequest.options
        maximumDimension = request.maximumDimension
        maximumSourceByteCount = request.maximumSourceByteCount
    }
}

/// A request with everything derived from it once: keys, and the decode-time thumbnail folded in.
struct PreparedRequest: Sendable {
    let request: ImageRequest
    /// The key of the original bytes (the cache-key hook's result).
    let dataKey: String
    /// The key of the final image in the memory cache and of its processed variant on disk.
    let imageKey: ImageCacheKey
    /// The thumbnail the decoder applies: the request's, or a leading processor's
    /// ``ImageProcessing/decodeTimeThumbnail``.
    let thumbnail: ThumbnailOptions?
    /// The processors run after decoding (without a folded leading one).
    let processors: [any ImageProcessing]
    private let policy: ImagePipeline.DiskCachePolicy

    /// The fetch of the original bytes for this request.
    var fetchKey: FetchKey {
        let options = request.options
        let mode: FetchKey.Mode =
            options.contains(.reloadIgnoringCachedData) || options.contains(.disableDiskCacheReads) ? .reload
            : options.contains(.returnCacheDataDontLoad) ? .cacheOnly : .normal
        return FetchKey(dataKey: dataKey, mode: mode)
    }

    /// Whether this caller wants downloaded original bytes written to disk
    /// (``ImagePipeline/writesOriginal(_:policy:originalOnly:)``, the fetch stage's gate).
    func storesOriginal(originalOnly: Bool = false) -> Bool {
        ImagePipeline.writesOriginal(request, policy: policy, originalOnly: originalOnly)
    }

    var decodeKey: DecodeKey { DecodeKey(fetch: fetchKey, thumbnail: thumbnail, storesOriginal: storesOriginal()) }
    var loadKey: LoadKey { LoadKey(image: imageKey, fetch: fetchKey, options: request.options) }

    init(_ request: ImageRequest, pipeline: ImagePipeline) {
        self.request = request
        let keys = pipeline.cacheKeys(for: request)
        dataKey = keys.dataKey
        imageKey = keys.imageKey
        // Only a valid size is folded: an invalid one stays with its processor, which reports it
        // as a processing error rather than as a decoding one.
        if request.thumbnail == nil, let first = request.processors.first, let folded = first.decodeTimeThumbnail,
           folded.width > 0, (folded.height ?? 1) > 0 {
            thumbnail = folded
            processors = Array(request.processors.dropFirst())
        } else {
            thumbnail = request.thumbnail
            processors = request.processors
        }
        policy = pipeline.configuration.diskCachePolicy
    }
}

/// What a stage hands to the next: the image so far and how it was obtained.
struct StageOutput: Sendable {
    var image: Image
    var layer: CacheLayer
    var isRevalidated = false
    var isStaleOnArrival = false
    var urlResponse: LoadedResponse?
    var discardedCachedEntry = false
    var metrics = ImageTaskMetrics()
    /// What the original's HTTP metadata says (freshness, `Cache-Control`), for the processed
    /// variant made from it; `nil` when the image came from a variant.
    var original: DataCacheMetadata?
    /// For an image made from stale bytes served at once: the fetch's background revalidation.
    var fetchRevalidation: FetchRevalidation?
    /// For a whole load's image made from stale bytes: the image the revalidation makes when
    /// the bytes changed (the load job's, once for all its callers).
    var imageRevalidation: ImageRevalidation?
}

/// The fetched bytes, the time the fetch took in seconds, whether they may be written to disk
/// (the fetch state machine's decision) and whether the job wrote them.
struct FetchOutput: Sendable {
    let fetched: FetchResult
    var duration: Double
    var isStorable: Bool = false
    var storedToDisk: Bool = false
    /// For stale bytes served at once: the background revalidation the job started for them.
    var revalidation: FetchRevalidation?
}
