import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ImagePipeline {
    /// Which encoded forms of an image the pipeline keeps in the disk cache.
    public enum DiskCachePolicy: String, Sendable, Hashable, CaseIterable, Codable {
        /// Store the original bytes only (the default): processed requests are redone from the
        /// original.
        case original
        /// Store processed variants (re-encoded with ``Configuration/encoder``) for requests with
        /// a thumbnail or processors; store the original only for requests without.
        case processed
        /// Store both the original and processed variants.
        case both
        /// Store nothing on disk.
        case none

        /// Whether originals fetched for a request with (`true`) or without processing are stored.
        func storesOriginal(forProcessedRequest processed: Bool) -> Bool {
            switch self {
            case .original, .both: true
            case .processed: !processed
            case .none: false
            }
        }

        /// Whether processed variants are read and written.
        var storesProcessed: Bool { self == .processed || self == .both }
    }

    /// Everything an ``ImagePipeline`` is built from: its caches, fetcher, decoder, encoder,
    /// renderer, queue widths and policies.
    ///
    /// The core has no default stack (no C library); the `Pictor` product adds
    /// `ImagePipeline.Configuration.default` with the memory cache, the SQLite disk cache, the
    /// URLSession loader and libvips.
    public struct Configuration: Sendable {
        /// The memory cache of final images; `nil` disables it. Default `nil`.
        public var imageCache: (any ImageCaching)?
        /// Fetches original bytes: disk cache, then network. Required.
        public var dataFetcher: any DataFetching
        /// The disk cache the pipeline uses directly: to store and read processed variants
        /// (by ``diskCachePolicy``) and to remove an original that failed to decode. Usually the
        /// same store the fetcher uses. Default `nil`.
        public var dataCache: (any DataCaching)?
        /// Decodes original bytes (and processed variants read from disk). Required.
        public var decoder: any ImageDecoding
        /// Encodes processed variants for the disk cache; `nil` (the default) stores none.
        public var encoder: (any ImageEncoding)?
        /// The pixel engine given to processors. Default ``UnavailableImageRenderer``.
        public var renderer: any ImageRendering
        /// Decodes allowed to run at once. Default 2 (the machine this was tuned on has 2 cores;
        /// libvips parallelises inside each decode too).
        public var decodingQueueWidth: Int
        /// Processing and encoding steps allowed to run at once. Default 2.
        public var processingQueueWidth: Int
        /// Which encoded forms are kept on disk. Default ``DiskCachePolicy/original``.
        public var diskCachePolicy: DiskCachePolicy
        /// Format of processed variants stored on disk; `nil` (the default) picks PNG for images
        /// with alpha and JPEG otherwise.
        public var processedVariantFormat: ImageFormat?
        /// Quality of processed variants stored in a lossy format, 1...100. Default 90.
        public var processedVariantQuality: Int
        /// Maps a request to the key of its bytes in both caches. Default: the whole URL
        /// (`absoluteString`), query included. Drop volatile query items of signed URLs here.
        public var cacheKey: @Sendable (ImageRequest) -> String
        /// Options for every decode (pixel-count limit, all frames…); the request's thumbnail
        /// overrides ``ImageDecodingOptions/thumbnail``. Default `ImageDecodingOptions()`
        /// (100-megapixel limit).
        public var decodingOptions: ImageDecodingOptions
        /// Where the pipeline logs; it prints request URLs only when
        /// ``PictorLog/revealsURLs`` is `true`. Default ``PictorLog/disabled``.
        public var logger: PictorLog

        /// The default cache-key hook: the request URL's `absoluteString` (query included), or
        /// an empty string when the request has no URL.
        public static let urlCacheKey: @Sendable (ImageRequest) -> String = { $0.url?.absoluteString ?? "" }

        /// Creates a configuration; see each property for its default.
        public init(
            dataFetcher: any DataFetching,
            decoder: any ImageDecoding,
            imageCache: (any ImageCaching)? = nil,
            dataCache: (any DataCaching)? = nil,
            encoder: (any ImageEncoding)? = nil,
            renderer: any ImageRendering = UnavailableImageRenderer(),
            decodingQueueWidth: Int = 2,
            processingQueueWidth: Int = 2,
            diskCachePolicy: DiskCachePolicy = .original,
            processedVariantFormat: ImageFormat? = nil,
            processedVariantQuality: Int = 90,
            cacheKey: @escaping @Sendable (ImageRequest) -> String = Configuration.urlCacheKey,
            decodingOptions: ImageDecodingOptions = ImageDecodingOptions(),
            logger: PictorLog = .disabled
        ) {
            self.dataFetcher = dataFetcher
            self.decoder = decoder
            self.imageCache = imageCache
            self.dataCache = dataCache
            self.encoder = encoder
            self.renderer = renderer
            self.decodingQueueWidth = decodingQueueWidth
            self.processingQueueWidth = processingQueueWidth
            self.diskCachePolicy = diskCachePolicy
            self.processedVariantFormat = processedVariantFormat
            self.processedVariantQuality = processedVariantQuality
            self.cacheKey = cacheKey
            self.decodingOptions = decodingOptions
            self.logger = logger
        }
    }
}
