import PictorCore

extension CurlTransport {
    /// How a ``CurlTransport`` connects; fixed for the transport's lifetime.
    public struct Configuration: Sendable {
        /// Connections open at once to one host (scheme, name and port), `6` by default
        /// (browsers' and URLSession's number). Transfers beyond it wait in libcurl's queue for a
        /// free connection (or share one over HTTP/2). Values below 1 count as 1.
        public var maximumConnectionsPerHost: Int = 6
        /// Connections open at once across all hosts, `48` by default (eight hosts at the
        /// default per-host limit); also the number of idle keep-alive connections kept for
        /// reuse. Never below ``maximumConnectionsPerHost``.
        public var maximumConnections: Int = 48
        /// The `User-Agent` sent when a request has none of its own;
        /// ``CurlTransport/defaultUserAgent`` (`Pictor/<version> (+swift; Linux)`) by default.
        /// `nil` sends no `User-Agent` at all.
        public var userAgent: String? = CurlTransport.defaultUserAgent
        /// Which HTTP versions to speak; ``HTTPVersion/http2OverTLS`` by default.
        public var httpVersion: HTTPVersion = .http2OverTLS
        /// Whether the server's TLS certificate and host name are verified, `true` by default.
        /// Turn it off only for tests; prefer ``caFile`` for a self-signed certificate.
        public var verifiesPeer: Bool = true
        /// A PEM file of certificate authorities trusted instead of the system's, for example a
        /// test or benchmark server's self-signed certificate; `nil` (the system store) by default.
        public var caFile: String? = nil
        /// Whether to ask for compressed bodies, `true` by default: `Accept-Encoding` lists every
        /// encoding this libcurl was built with (gzip and deflate, and br and zstd when
        /// available) and the body is decoded before it is returned. With `false`, no
        /// `Accept-Encoding` is sent and bodies are returned as received.
        public var acceptsEncoding: Bool = true

        /// Creates a configuration with the defaults above.
        public init() {}
    }

    /// The HTTP versions a ``CurlTransport`` speaks.
    public enum HTTPVersion: Sendable, Hashable {
        /// HTTP/1.1 only.
        case http1
        /// HTTP/2 over TLS when the server offers it (ALPN), HTTP/1.1 otherwise and always on
        /// cleartext `http` (`CURL_HTTP_VERSION_2TLS`). HTTP/2 requests to one host share one
        /// connection (multiplexing).
        case http2OverTLS
    }

    /// The default `User-Agent`: `Pictor/<version> (+swift; Linux)`, for example
    /// `Pictor/0.1.0 (+swift; Linux)`, the same as URLSession-based loading sends.
    public static let defaultUserAgent = "Pictor/\(PictorVersion.current) (+swift; Linux)"
}
