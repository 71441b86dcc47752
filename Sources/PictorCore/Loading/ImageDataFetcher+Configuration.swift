import Foundation

extension ImageDataFetcher {
    /// How the fetcher uses the disk cache.
    public enum CachePolicy: String, Sendable, Hashable, CaseIterable {
        /// HTTP caching done by Pictor (RFC 9111, as a private cache): a fresh entry is served
        /// with no request; a stale one with validators is revalidated with `If-None-Match` /
        /// `If-Modified-Since` (a 304 serves the cached bytes and refreshes freshness); a stale
        /// one without validators is downloaded again; `no-store` responses are never written.
        case http
        /// Keep until evicted: any entry is served as is, and every downloaded image is stored
        /// whatever its headers say (`no-store` included). SDWebImage's and Kingfisher's default.
        case ignoreHTTPHeaders
    }

    /// How an ``ImageDataFetcher`` caches.
    public struct Configuration: Sendable {
        /// The cache policy; ``CachePolicy/http`` by default.
        ///
        /// Why HTTP by default: Pictor implements HTTP caching itself precisely because
        /// URLSession on Linux does not, and servers that want images kept (CDNs, content-hashed
        /// URLs) say so with `max-age` / `immutable`; for the others a revalidation costs one
        /// small 304 instead of serving an image the server has replaced. "Keep until evicted"
        /// (SDWebImage, Kingfisher) saves that round trip and suits URLs that never change
        /// content; choose ``CachePolicy/ignoreHTTPHeaders`` for them.
        public var cachePolicy: CachePolicy = .http
        /// Cap of the heuristic freshness given to responses that have `Last-Modified` but no
        /// `max-age` / `Expires` (10 % of their age, RFC 9111 §4.2.2), in seconds; `86,400`
        /// (one day) by default.
        public var maximumHeuristicLifetime: Double = 86_400
        /// Whether a stale entry is served when revalidation fails with a transient error
        /// (timeout, transport error, 5xx) and the entry has no `must-revalidate` / `no-cache`
        /// (RFC 9111 §4.2.4). `true` by default.
        public var servesStaleOnError: Bool = true
        /// The current time; replaced in tests.
        package var now: @Sendable () -> Date = { Date() }

        /// Creates a configuration with the defaults above.
        public init(cachePolicy: CachePolicy = .http) { self.cachePolicy = cachePolicy }
    }
}
