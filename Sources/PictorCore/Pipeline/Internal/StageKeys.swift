import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The identity of a fetch of original bytes: the data key and how the caches may be used.
struct FetchKey: Hashable, Sendable {
    let dataKey: String
    let ignoresCachedData: Bool
    let isCacheOnly: Bool
    let storesToDisk: Bool

    /// The same fetch, but skipping the disk read (after a cached entry failed to decode).
    var reloading: FetchKey {
        FetchKey(dataKey: dataKey, ignoresCachedData: true, isCacheOnly: isCacheOnly, storesToDisk: storesToDisk)
    }
}

/// The identity of a decode: the fetch it decodes and the thumbnail it decodes at.
struct DecodeKey: Hashable, Sendable {
    let fetch: FetchKey
    let thumbnail: ThumbnailOptions?
}

/// The identity of one processing step: the decode and the identifiers of the chain so far.
struct ProcessKey: Hashable, Sendable {
    let decode: DecodeKey
    let processors: [String]
}

/// The identity of a whole image load: the memory-cache key, the fetch and the options that
/// change what the load does.
struct LoadKey: Hashable, Sendable {
    let image: ImageCacheKey
    let fetch: FetchKey
    let options: ImageRequest.Options
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

    /// The fetch of the original bytes for this request (its options and the disk policy).
    var fetchKey: FetchKey { makeFetchKey(storingAsProcessed: request.isProcessed) }
    /// The fetch when only the original bytes are wanted (``ImagePipeline/data(for:)``,
    /// ``ImageRequest/Options/skipDecode``): stored on disk as for an unprocessed request.
    var originalFetchKey: FetchKey { makeFetchKey(storingAsProcessed: false) }

    var decodeKey: DecodeKey { DecodeKey(fetch: fetchKey, thumbnail: thumbnail) }
    var loadKey: LoadKey { LoadKey(image: imageKey, fetch: fetchKey, options: request.options) }

    private func makeFetchKey(storingAsProcessed processed: Bool) -> FetchKey {
        let options = request.options
        return FetchKey(
            dataKey: dataKey,
            ignoresCachedData: options.contains(.reloadIgnoringCachedData) || options.contains(.disableDiskCacheReads),
            isCacheOnly: options.contains(.returnCacheDataDontLoad),
            storesToDisk: !options.contains(.disableDiskCacheWrites) && policy.storesOriginal(forProcessedRequest: processed))
    }

    init(_ request: ImageRequest, configuration: ImagePipeline.Configuration) {
        self.request = request
        let dataKey = configuration.cacheKey(request)
        self.dataKey = dataKey
        if request.isProcessed {
            // Length-prefixed parts, so that no two (key, thumbnail, chain) triples share a key
            // whatever characters a cache-key hook or a custom processor identifier contains.
            var text = ImageProcessors.escaped(dataKey)
            if let thumbnail = request.thumbnail { text += "T" + ImageProcessors.escaped(thumbnail.identifier) }
            text += "P" + ImageProcessors.identifier(of: request.processors)
            imageKey = ImageCacheKey(text)
        } else {
            imageKey = ImageCacheKey(dataKey)
        }
        if request.thumbnail == nil, let first = request.processors.first, let folded = first.decodeTimeThumbnail {
            thumbnail = folded
            processors = Array(request.processors.dropFirst())
        } else {
            thumbnail = request.thumbnail
            processors = request.processors
        }
        policy = configuration.diskCachePolicy
    }
}

/// What a stage hands to the next: the image so far and how it was obtained.
struct StageOutput: Sendable {
    var image: Image
    var layer: CacheLayer
    var isRevalidated = false
    var urlResponse: URLResponse?
    var discardedCachedEntry = false
    var metrics = ImageTaskMetrics()
}

/// The fetched bytes and the time the fetch took, in seconds.
struct FetchOutput: Sendable {
    let fetched: FetchedData
    let duration: Double
}
