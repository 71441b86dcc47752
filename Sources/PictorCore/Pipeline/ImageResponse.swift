import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cache layer that served a response.
public enum CacheLayer: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// The memory cache had the final image.
    case memory
    /// The disk cache had the bytes (the original, or a processed variant).
    case disk
    /// The shared fleet tier had the bytes (``ImagePipeline/Configuration/sharedCache``).
    case shared
    /// The bytes were downloaded (or read from a `file:`/`data:` URL).
    case network

    /// The layer's name: `memory`, `disk`, `shared` or `network`.
    public var description: String { rawValue }
}

/// The result of ``ImagePipeline/image(for:)-(ImageRequest)``: the image, where it came from, and how long
/// each stage took.
public struct ImageResponse: Sendable {
    /// The final image: decoded (at the thumbnail size, if any) and processed.
    public var image: Image
    /// The request this answers.
    public var request: ImageRequest
    /// The layer that served it.
    public var cacheLayer: CacheLayer
    /// Whether the disk entry was confirmed by the server (HTTP 304) before being served; the
    /// layer is then ``CacheLayer/disk``.
    public var isRevalidated: Bool
    /// Whether the origin's answer behind this response (a download, or a 304 that confirmed a
    /// cached entry) was already stale when it arrived, under the
    /// ``ImagePipeline/HTTPCachePolicy/http`` policy: `Cache-Control: max-age=0` or `no-cache`,
    /// an `Expires` no later than its `Date`, an `Age` past its lifetime, a `Vary` on a request
    /// header, or validators without any freshness. The disk cache keeps such an entry, but
    /// every later use asks the server first (a conditional request when it has validators,
    /// else a whole download). `false` for cache hits, `file:` and `data:` URLs, responses that
    /// are not stored (`no-store`), and under ``ImagePipeline/HTTPCachePolicy/ignoreHTTPHeaders``.
    public var isStaleOnArrival: Bool
    /// The HTTP (or file) response, for network and revalidated loads; `nil` for cache hits.
    /// Built on first read from the head the transport parsed (Foundation's `HTTPURLResponse`
    /// costs a share of a download's CPU on Linux, and most callers never read it).
    public var urlResponse: URLResponse? {
        get { loadedResponse?.urlResponse }
        set { loadedResponse = newValue.map { LoadedResponse($0) } }
    }
    /// The response as the fetch stage carries it.
    package var loadedResponse: LoadedResponse?
    /// Whether a cached entry failed to decode, was removed and the image loaded again from the
    /// next layer.
    public var discardedCachedEntry: Bool
    /// Timings, sizes and sharing of the work behind this response;
    /// ``ImageTaskMetrics/wasShared`` tells whether this call was coalesced with another
    /// caller's identical work (and so cost no transfer or decode of its own).
    public var metrics: ImageTaskMetrics
    /// Whether the image was made from a cache's stale bytes, served at once while the
    /// pipeline revalidates them in the background (the response's `stale-while-revalidate`,
    /// or ``ImagePipeline/HTTPCachePolicy/returnCachedThenRevalidate``). When the server has a
    /// new image, it replaces the cached ones and an ``ImageTask`` started for this request
    /// announces it as ``ImageTask/Event/updated(_:)``.
    public var isRevalidatingInBackground: Bool { revalidation != nil }
    /// The background revalidation behind a stale answer.
    var revalidation: ImageRevalidation?
    /// Whether this is a preview made while the bytes arrived (``ImageTask/previews``), not the
    /// final image: decoded from part of the file, at the thumbnail size or the DCT scale
    /// just above it, without processors, and never cached. `false` by default.
    public var isPreview: Bool = false

    /// Creates a response.
    public init(
        image: Image, request: ImageRequest, cacheLayer: CacheLayer, isRevalidated: Bool = false, isStaleOnArrival: Bool = false,
        urlResponse: URLResponse? = nil, discardedCachedEntry: Bool = false, metrics: ImageTaskMetrics = ImageTaskMetrics(),
        isPreview: Bool = false
    ) {
        self.isPreview = isPreview
        self.image = image
        self.request = request
        self.cacheLayer = cacheLayer
        self.isRevalidated = isRevalidated
        self.isStaleOnArrival = isStaleOnArrival
        self.loadedResponse = urlResponse.map { LoadedResponse($0) }
        self.discardedCachedEntry = discardedCachedEntry
        self.metrics = metrics
    }

    /// A response whose `URLResponse` is built only when read.
    package init(
        image: Image, request: ImageRequest, cacheLayer: CacheLayer, isRevalidated: Bool = false, isStaleOnArrival: Bool = false,
        urlResponse: LoadedResponse?, discardedCachedEntry: Bool = false, metrics: ImageTaskMetrics = ImageTaskMetrics()
    ) {
        self.init(image: image, request: request, cacheLayer: cacheLayer, isRevalidated: isRevalidated,
                  isStaleOnArrival: isStaleOnArrival, urlResponse: nil as URLResponse?, discardedCachedEntry: discardedCachedEntry, metrics: metrics)
        self.loadedResponse = urlResponse
    }
}

/// The result of ``ImagePipeline/data(for:)-(ImageRequest)``: the original encoded bytes and where they came
/// from.
public struct ImageDataResponse: Sendable {
    /// The original bytes, as downloaded or stored.
    public var data: Data
    /// The layer that served them (``CacheLayer/disk`` or ``CacheLayer/network``).
    public var cacheLayer: CacheLayer
    /// Whether the disk entry was confirmed by the server (HTTP 304).
    public var isRevalidated: Bool
    /// Whether the origin's answer behind this response (a download, or a 304 that confirmed a
    /// cached entry) was already stale when it arrived, under the
    /// ``ImagePipeline/HTTPCachePolicy/http`` policy: `Cache-Control: max-age=0` or `no-cache`,
    /// an `Expires` no later than its `Date`, an `Age` past its lifetime, a `Vary` on a request
    /// header, or validators without any freshness. The disk cache keeps such an entry, but
    /// every later use asks the server first (a conditional request when it has validators,
    /// else a whole download). `false` for cache hits, `file:` and `data:` URLs, responses that
    /// are not stored (`no-store`), and under ``ImagePipeline/HTTPCachePolicy/ignoreHTTPHeaders``.
    public var isStaleOnArrival: Bool
    /// The HTTP (or file) response, for network and revalidated loads; built on first read
    /// (see ``ImageResponse/urlResponse``).
    public var urlResponse: URLResponse? {
        get { loadedResponse?.urlResponse }
        set { loadedResponse = newValue.map { LoadedResponse($0) } }
    }
    /// The response as the fetch stage carries it.
    package var loadedResponse: LoadedResponse?
    /// Timings, sizes and sharing; only ``ImageTaskMetrics/loadDuration``,
    /// ``ImageTaskMetrics/originalByteCount`` and ``ImageTaskMetrics/wasShared`` (this call
    /// joined a fetch already running for the same bytes) are set.
    public var metrics: ImageTaskMetrics

    /// Creates a data response.
    public init(data: Data, cacheLayer: CacheLayer, isRevalidated: Bool = false, isStaleOnArrival: Bool = false,
                urlResponse: URLResponse? = nil, metrics: ImageTaskMetrics = ImageTaskMetrics()) {
        self.data = data
        self.cacheLayer = cacheLayer
        self.isRevalidated = isRevalidated
        self.isStaleOnArrival = isStaleOnArrival
        self.loadedResponse = urlResponse.map { LoadedResponse($0) }
        self.metrics = metrics
    }

    /// A data response whose `URLResponse` is built only when read.
    package init(data: Data, cacheLayer: CacheLayer, isRevalidated: Bool = false, isStaleOnArrival: Bool = false,
                 urlResponse: LoadedResponse?, metrics: ImageTaskMetrics = ImageTaskMetrics()) {
        self.init(data: data, cacheLayer: cacheLayer, isRevalidated: isRevalidated, isStaleOnArrival: isStaleOnArrival,
                  urlResponse: nil as URLResponse?, metrics: metrics)
        self.loadedResponse = urlResponse
    }
}
