import PictorCore

extension ImageService {
    /// What the response's `Cache-Control` says.
    public enum CacheControlPolicy: Sendable, Hashable {
        /// `public, max-age=<seconds>` on every image response, whatever the source said.
        case maxAge(Int)
        /// `public, max-age=<the source's remaining freshness, in whole seconds>`, as the
        /// pipeline's tiers judge it (its `s-maxage`/`max-age`/`Expires`, or, for a response
        /// with none, the pipeline's ``/PictorCore/ImagePipeline/Configuration/defaultFreshnessLifetime``
        /// or heuristic); `fallback` seconds when the pipeline knows none (no disk tier,
        /// ``/PictorCore/ImagePipeline/HTTPCachePolicy/ignoreHTTPHeaders``).
        case passthrough(fallback: Int)
    }

    /// Everything an ``ImageService`` is built from besides its pipeline: the path grammar,
    /// which sources may be fetched, encoding defaults, HTTP caching, and limits. Every value
    /// has a default except ``parser``.
    public struct Configuration: Sendable {
        /// Reads and verifies request paths: the signature policy, the presets, presets-only
        /// mode and the path limits. Required.
        public var parser: ProcessingURLParser
        /// Prefixes a source URL must start with (as it will be fetched); repeatable, e.g.
        /// `["https://img.example/", "https://cdn.example/assets/"]`. Default empty: any `http`
        /// or `https` source. `file:` and `data:` sources are never fetched, whatever is set.
        public var allowedSourcePrefixes: [String] = []
        /// Whether sources at literal loopback, private, link-local, CGNAT, multicast,
        /// reserved or unspecified addresses (and `localhost`) may be fetched, as the source and
        /// as any redirect target. Default `false`. A *name* that resolves to such an address is
        /// the transport's to refuse, on the address it connects to: give a `CurlTransport` the
        /// same rule (its `connectAddressPolicy`, ``/PictorCore/ConnectAddressPolicy/publicOnly``
        /// when this is `false`), as `pictor serve` does; a refusal there is a 403 too.
        public var allowsPrivateNetwork: Bool = false
        /// The encoder quality when the request has no `q:` (or `q:0`), 1...100. Default 80
        /// (imgproxy's).
        public var defaultQuality: Int = 80
        /// What `Cache-Control` says on image responses. Default `.maxAge(31_536_000)` (one
        /// year, imgproxy's `IMGPROXY_TTL`): results are named by their options and source, and
        /// a changed source needs a new URL (`cb:`) to reach browsers that cached the old one.
        public var cacheControl: CacheControlPolicy = .maxAge(31_536_000)
        /// Formats chosen from the request's `Accept` when the path names none, in order of
        /// preference, e.g. `[.avif, .webp]`: the first one `Accept` names explicitly (with
        /// `q` > 0; `image/*` and `*/*` do not count) is used, else the source's format. Any
        /// response to a path without a format then carries `Vary: Accept`. Default empty
        /// (no negotiation, no `Vary`).
        public var autoFormats: [ImageFormat] = []
        /// The formats a result may be encoded in (by `f:`, the extension, negotiation or the
        /// source's own); a path that asks for another is refused with 400. Default JPEG, PNG,
        /// WebP, AVIF and GIF.
        public var outputFormats: Set<ImageFormat> = [.jpeg, .png, .webp, .avif, .gif]
        /// The largest source, in bytes. Default 52,428,800 (50 MiB). A
        /// ``/PictorCore/DataLoader``'s maximum response size is lowered to it, so its transport
        /// refuses a larger `Content-Length` before the body and stops a larger body as soon as
        /// the bytes received pass it; a source from the disk or fleet tier is checked too.
        public var maxSourceBytes: Int = 50 << 20
        /// The largest source, in pixels (width × height of one frame, from its header, before
        /// anything is decoded). Default 50,000,000 (50 MP). Lowers the pipeline's
        /// ``/PictorCore/ImageDecodingOptions/maximumPixelCount`` when that is higher.
        public var maxSourcePixels: Int = 50_000_000
        /// The widest and tallest result, in pixels (after `dpr`). Default 8,192. A request
        /// whose size asks for more is refused before anything is fetched; a result that comes
        /// out larger (no size asked, a large source) after it is made.
        public var maxResultDimension: Int = 8192
        /// The most pixels a result may have (width × height, after `dpr`). Default
        /// 50,000,000, as ``maxSourcePixels``: within ``maxResultDimension`` a side a result
        /// could otherwise have 67 MP, and cost more to resize and encode than any source may.
        /// A request whose width and height ask for more is refused (422) before anything is
        /// fetched.
        public var maxResultPixels: Int = 50_000_000
        /// How long one request may take, from its arrival to its answer, in seconds. Default
        /// 30. After that it is answered 504; the work goes on only while other requests wait
        /// for the same result (a decode, resize or encode already running finishes, and keeps
        /// its ``maxWorkInFlight`` slot until then).
        public var requestTimeout: Double = 30
        /// The most results made at once (distinct keys being fetched, decoded, processed or
        /// encoded). Default 64. A request that would start one more is answered 429; requests
        /// for a result already being made join it and are not counted. A result's slot is
        /// given back when its work ends, not when its requests leave: work whose requests all
        /// timed out or were cancelled still counts while a decode or encode of it runs.
        public var maxWorkInFlight: Int = 64
        /// The `Retry-After` of a 429, in seconds. Default 1.
        public var retryAfter: Int = 1
        /// Ignored. Results are encoded on the pipeline's processing queue (off the Swift
        /// cooperative pool), as wide as the ``/PictorCore/ImagePipeline/Configuration/processingQueueWidth``
        /// of the pipeline configuration given to ``ImageService/init(configuration:pipeline:)``
        /// (the cores this process may use, by default); set that instead.
        @available(*, deprecated, message: "results are encoded on the pipeline's processing queue: set ImagePipeline.Configuration.processingQueueWidth")
        public var encodingWidth: Int = 2
        /// The most bytes of encoded results kept in memory, so that a warm request touches no
        /// disk. Default 67,108,864 (64 MiB); an entry over a quarter of it is not kept. Each
        /// result counts its bytes, its key's and 512 bytes of bookkeeping, and at most 16,384
        /// results are kept, so that many tiny results under long keys stay within the limit.
        public var resultMemoryLimit: Int = 64 << 20
        /// How long an encoded result is kept in memory, in seconds, at most (less when its
        /// source is fresh for less). Default 300. After that the disk tier (and its freshness
        /// rules) answers again.
        public var resultMemoryLifetime: Double = 300
        /// How long one health probe of the tiers (``ImageService/health()``) answers later
        /// calls, in seconds, 0 or more. Default 1: a flood of `/health` requests costs one
        /// probe a second, and one Redis `PING`. 0 probes on every call.
        public var healthCheckInterval: Double = 1
        /// The longest wait for the fleet tier to answer a health probe, in seconds. Default
        /// 0.25: a dead Redis slows `/health` by no more than this.
        public var healthCheckTimeout: Double = 0.25

        /// A configuration with `parser` and every other value at its default.
        public init(parser: ProcessingURLParser) {
            self.parser = parser
        }

        /// The source check these values make.
        public var sourceGuard: SourceGuard {
            SourceGuard(allowedSourcePrefixes: allowedSourcePrefixes, allowsPrivateNetwork: allowsPrivateNetwork)
        }
    }
}
