import Dispatch
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
    }

    /// How the fetch stage uses the disk cache's original bytes.
    public enum HTTPCachePolicy: String, Sendable, Hashable, CaseIterable, Codable {
        /// HTTP caching done by Pictor (RFC 9111, as a private cache): a fresh entry is served
        /// with no request; a stale one with validators is revalidated with `If-None-Match` /
        /// `If-Modified-Since` (a 304 serves the cached bytes and refreshes freshness); a stale
        /// one without validators is downloaded again; `no-store` responses are never written.
        ///
        /// Why it is the default: servers that want images kept (CDNs, content-hashed URLs) say
        /// so with `max-age` / `immutable`; for the others a revalidation costs one small 304
        /// instead of serving an image the server has replaced.
        case http
        /// Keep until evicted: any entry is served as is, and every downloaded image is stored
        /// whatever its headers say (`no-store` included). SDWebImage's and Kingfisher's default;
        /// suits URLs that never change content.
        case ignoreHTTPHeaders
        /// HTTP caching as ``http``, except that a stale entry (any: past its freshness, without
        /// validators, even `no-cache` or `must-revalidate`) answers at once, and the fetch
        /// revalidates it in the background: a conditional request with its validators, shared
        /// with every other fetch of the same bytes. A 304 refreshes the entry's freshness; a
        /// new image replaces the entry in every tier (memory included) and is announced to
        /// the ``ImageTask`` as ``ImageTask/Event/updated(_:)``. The response is flagged
        /// ``ImageResponse/isRevalidatingInBackground``.
        ///
        /// What an app that shows a feed wants (and what Nuke and Kingfisher users build by
        /// hand from a cache-only request followed by a reload): never wait for the network
        /// when any image is at hand, yet never keep an image the server replaced. Under
        /// ``http`` only the server's own `stale-while-revalidate=N` allows this, for N seconds.
        case returnCachedThenRevalidate

        /// Whether freshness, validators and `no-store` are followed (every policy but
        /// ``ignoreHTTPHeaders``).
        var followsHTTPHeaders: Bool { self != .ignoreHTTPHeaders }
    }

    /// Everything an ``ImagePipeline`` is built from: its caches, loader, decoder, encoder,
    /// renderer, queue widths and policies.
    ///
    /// The core has no default stack (no C library); the `Pictor` product adds
    /// `ImagePipeline.Configuration.default` with the memory cache, the SQLite disk cache, the
    /// libcurl loader and libvips.
    public struct Configuration: Sendable {
        /// The memory cache of final images; `nil` disables it. Default `nil`.
        public var imageCache: (any ImageCaching)?
        /// Loads original bytes from the network (and `file:`/`data:` URLs) when no cache tier
        /// answers: a ``DataLoader`` in production. Required.
        public var dataLoader: any DataLoading
        /// The disk cache of original bytes and processed variants: read before the network,
        /// written after a validated download, revalidated by ``httpCachePolicy``, and cleared
        /// of an entry that fails to decode. Default `nil` (no disk tier).
        public var dataCache: (any DataCaching)?
        /// The shared fleet tier of original bytes (Redis, with `PictorRedis`), read after a disk
        /// miss and written after a validated download, with download leases so that a fleet
        /// downloads each URL once. Its failures never fail a load. Default `nil` (none).
        public var sharedCache: (any SharedDataCache)?
        /// How the shared tier is used: size limit, time to live, leases, circuit breaker.
        /// Default `SharedCachePolicy()`.
        public var sharedCachePolicy = SharedCachePolicy()
        /// How disk entries of original bytes are judged fresh. Default ``HTTPCachePolicy/http``.
        public var httpCachePolicy: HTTPCachePolicy = .http
        /// Cap of the heuristic freshness given to responses that have `Last-Modified` but no
        /// `max-age` / `Expires` (10 % of their age, RFC 9111 §4.2.2), in seconds. `86,400`
        /// (one day) by default.
        public var maximumHeuristicLifetime: Double = 86_400
        /// Freshness, in seconds, given under ``HTTPCachePolicy/http`` to a response that sends
        /// neither freshness (`Cache-Control: max-age`, `Expires`) nor a validator (`ETag`,
        /// `Last-Modified`): such an entry could never be revalidated, only downloaded again, so
        /// it is kept this long (SDWebImage's and Kingfisher's behaviour for every response).
        /// `604,800` (7 days, the disk cache's default maximum age) by default; `.standard(…)`
        /// uses its disk cache's maximum age; `nil` treats such responses as stale at once.
        public var defaultFreshnessLifetime: Double? = 604_800
        /// Whether a stale entry is served when revalidation fails with a transient error
        /// (timeout, transport error, 5xx) and the entry has no `must-revalidate` / `no-cache`
        /// (RFC 9111 §4.2.4). `true` by default.
        public var servesStaleOnError: Bool = true
        /// The kind of cache this pipeline's own tiers (``imageCache`` and ``dataCache``) are.
        /// ``CacheScope/private`` by default: one user's, as an app's or a command's caches are,
        /// so `private` responses and responses to requests with `Authorization` are kept and
        /// `max-age` decides freshness. Set ``CacheScope/shared`` for a service that answers many
        /// clients from these tiers: they then follow the rules ``sharedCache`` always follows
        /// (no `private` response, no response to a request with credentials unless it says
        /// `public`, `s-maxage` or `must-revalidate`, `s-maxage` first, `proxy-revalidate`).
        public var cacheScope: CacheScope = .private
        /// Hashes a request's values of the header fields a response's `Vary` names, so that an
        /// entry records which request it answers without holding the values (they may be
        /// credentials or cookies), and answers only requests with the same values (RFC 9111
        /// §4.1). `nil` by default in the core, which has no hash function: responses whose
        /// `Vary` names a field other than `Accept-Encoding` are then not stored. The `Pictor`
        /// product's `.default` and `.standard(…)` set SHA-256.
        public var varyKeyHashing: (any CacheKeyHashing)?
        /// The current time, for freshness; replaced in tests.
        package var now: @Sendable () -> Date = { Date() }
        /// Whether every ``ImageTask`` of this pipeline delivers previews while its bytes arrive
        /// (``ImageTask/previews``): for a progressive JPEG, one each time a scan completes,
        /// decoded at the request's thumbnail size (or the DCT scale just above it), with no
        /// processor applied. Previews cost a second, partial decode and are never cached. A
        /// request can ask on its own with ``ImageRequest/Options/progressivePreviews``.
        /// `false` by default (Nuke's `isProgressiveDecodingEnabled`).
        public var isProgressiveDecodingEnabled = false
        /// Whether every ``ImageTask`` of this pipeline also delivers incremental previews
        /// (``ImagePreviewKinds/incremental``): for a baseline (sequential) JPEG or a
        /// non-interlaced PNG, the rows decoded so far, the rows not received yet mid-grey
        /// (transparent where the image has alpha), as browsers paint them; for an interlaced
        /// PNG, a coarse whole image per completed Adam7 pass. Same size, throttle and rules as
        /// progressive previews, which it implies. A request can ask on its own with
        /// ``ImageRequest/Options/incrementalPreviews``. `false` by default (SDWebImage's
        /// `progressiveLoad`, ImageIO's incremental image sources).
        public var isIncrementalDecodingEnabled = false
        /// The shortest time between two previews of one download: bytes that complete a scan
        /// sooner wait for the next bytes after it. 100 ms by default.
        public var previewInterval: Duration = .milliseconds(100)
        /// A monotonic clock for ``previewInterval``; replaced in tests (a manual clock).
        package var monotonicNow: @Sendable () -> Duration = {
            .nanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds))
        }
        /// Decodes original bytes (and processed variants read from disk). Required.
        public var decoder: any ImageDecoding
        /// Encodes processed variants for the disk cache; `nil` (the default) stores none.
        public var encoder: (any ImageEncoding)?
        /// The pixel engine given to processors. Default ``UnavailableImageRenderer``.
        public var renderer: any ImageRendering
        /// Decodes allowed to run at once: the CPU's limit, as downloads are the network's
        /// (``DataLoader/Configuration/maximumConcurrentRequests``). Default: the cores this
        /// process may use (``defaultQueueWidth``, `ProcessInfo.activeProcessorCount`); a decode
        /// keeps one core busy, so more would only interleave them.
        public var decodingQueueWidth: Int
        /// Processing and encoding steps allowed to run at once. Default: the cores this
        /// process may use (``defaultQueueWidth``).
        public var processingQueueWidth: Int

        /// The default decoding and processing width: the cores this process may use
        /// (`ProcessInfo.activeProcessorCount`, at least 1).
        public static var defaultQueueWidth: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
        /// Which encoded forms are kept on disk. Default ``DiskCachePolicy/original``.
        public var diskCachePolicy: DiskCachePolicy
        /// Format of processed variants stored on disk; `nil` (the default) keeps the original's
        /// format when it is JPEG, PNG, WebP, GIF or AVIF (so a lossless original stays
        /// lossless, an animation stays animated, and an image made from the variant is in the
        /// format one made from the original would be), and PNG otherwise.
        public var processedVariantFormat: ImageFormat?
        /// Quality of processed variants stored in a lossy format, 1...100. Default 90.
        public var processedVariantQuality: Int
        /// Maps a request to the key of its bytes in both caches. Default: the whole URL
        /// (`absoluteString`), query included. Drop volatile query items of signed URLs here.
        ///
        /// Called once per request value and pipeline: the result is kept with the request
        /// (and its copies) until its `urlRequest`, `processors`, `thumbnail` or `userInfo`
        /// change, so a memory hit does not call it again. It must therefore depend on those
        /// alone, not on the priority, the options or state outside the request.
        public var cacheKey: @Sendable (ImageRequest) -> String
        /// Options for every decode (pixel-count limit, all frames…); the request's thumbnail
        /// overrides ``ImageDecodingOptions/thumbnail``. Default `ImageDecodingOptions()`
        /// (100-megapixel limit).
        public var decodingOptions: ImageDecodingOptions
        /// Where the pipeline logs; it prints request URLs only when
        /// ``PictorLog/revealsURLs`` is `true`. Default ``PictorLog/disabled``.
        public var logger: PictorLog
        /// Told how long each stage took, each time one runs (``PipelineStage``), on the
        /// thread that ran it (a decoding or processing queue thread, or the task that
        /// downloaded): keep it short and non-blocking, e.g. adding to a histogram under a
        /// lock. Work shared by several callers is reported once. Default `nil`: no stage is
        /// timed for it (no clock is read that the pipeline would not read anyway).
        public var stageObserver: (@Sendable (PipelineStage, Duration) -> Void)?

        /// The default cache-key hook: the request URL's `absoluteString` (query included), or
        /// an empty string when the request has no URL.
        public static let urlCacheKey: @Sendable (ImageRequest) -> String = { $0.url?.absoluteString ?? "" }

        /// Creates a configuration; see each property for its default.
        public init(
            dataLoader: any DataLoading,
            decoder: any ImageDecoding,
            imageCache: (any ImageCaching)? = nil,
            dataCache: (any DataCaching)? = nil,
            httpCachePolicy: HTTPCachePolicy = .http,
            encoder: (any ImageEncoding)? = nil,
            renderer: any ImageRendering = UnavailableImageRenderer(),
            decodingQueueWidth: Int = Configuration.defaultQueueWidth,
            processingQueueWidth: Int = Configuration.defaultQueueWidth,
            diskCachePolicy: DiskCachePolicy = .original,
            processedVariantFormat: ImageFormat? = nil,
            processedVariantQuality: Int = 90,
            cacheKey: @escaping @Sendable (ImageRequest) -> String = Configuration.urlCacheKey,
            decodingOptions: ImageDecodingOptions = ImageDecodingOptions(),
            logger: PictorLog = .disabled
        ) {
            self.dataLoader = dataLoader
            self.decoder = decoder
            self.imageCache = imageCache
            self.dataCache = dataCache
            self.httpCachePolicy = httpCachePolicy
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
