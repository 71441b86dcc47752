import Foundation
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
        /// Turn it off only for tests; prefer ``caFile`` for a private CA or a self-signed
        /// certificate.
        public var verifiesPeer: Bool = true
        /// The path of a PEM file of certificate authorities to trust (one or more
        /// certificates), for example an internal CA or a test server's self-signed
        /// certificate: curl's `--cacert`, libcurl's `CURLOPT_CAINFO`. `nil` by default:
        /// libcurl's built-in bundle (Debian: `/etc/ssl/certs/ca-certificates.crt`).
        ///
        /// It replaces the built-in bundle, not the built-in directory: libcurl still searches
        /// its default ``caPath`` (Debian: `/etc/ssl/certs`, the system's CAs) unless
        /// ``caPath`` is set too. A file that cannot be read fails each HTTPS exchange with
        /// ``/PictorCore/DataLoadingError/Kind/tlsHandshakeFailed`` (libcurl error 77).
        /// ``trustCertificateAuthorities(fromEnvironment:)`` sets it from `CURL_CA_BUNDLE` or
        /// `SSL_CERT_FILE`.
        public var caFile: String? = nil
        /// The path of a directory of PEM certificate authorities named by their subject hash,
        /// as `openssl rehash DIR` (or `c_rehash DIR`) makes them: curl's `--capath`, libcurl's
        /// `CURLOPT_CAPATH`. `nil` by default: libcurl's built-in directory (Debian:
        /// `/etc/ssl/certs`). It replaces that directory; ``caFile`` (or the built-in bundle) is
        /// still trusted too. Certificates are looked up in it by hash during each handshake: a
        /// directory that does not exist, or whose files are not hashed, trusts nothing more.
        /// ``trustCertificateAuthorities(fromEnvironment:)`` sets it from `SSL_CERT_DIR`.
        public var caPath: String? = nil
        /// The path of a PEM file holding the client certificate for mutual TLS (then any
        /// intermediate certificates the server needs to build its chain, and optionally the
        /// private key): curl's `--cert`, libcurl's `CURLOPT_SSLCERT`. Sent to every HTTPS server
        /// that asks for a client certificate. `nil` (no client certificate) by default.
        ///
        /// A certificate or key that cannot be read or does not match fails each HTTPS exchange
        /// with ``/PictorCore/DataLoadingError/Kind/clientCertificateRejected`` (libcurl error
        /// 58), not retried; so does a server's refusal of the certificate (or of its absence)
        /// in the handshake, with a TLS alert about it (TLS 1.3's `certificate_required`,
        /// `unknown_ca`, `bad_certificate`, …; a TLS 1.2 server that only wants one sends a bare
        /// `handshake_failure`, a ``/PictorCore/DataLoadingError/Kind/tlsHandshakeFailed``). A
        /// server that refuses it after the handshake answers with its own status (nginx:
        /// `400`).
        public var clientCertificateFile: String? = nil
        /// The path of the PEM private key of ``clientCertificateFile``: curl's `--key`,
        /// libcurl's `CURLOPT_SSLKEY`. `nil` by default: the key is read from
        /// ``clientCertificateFile``. Not used without ``clientCertificateFile``. The key must
        /// not be encrypted: Pictor never asks for a passphrase (an encrypted key fails as a
        /// key that cannot be read, never with a prompt on the terminal).
        public var clientKeyFile: String? = nil
        /// Which addresses connections may be opened to, judged on each address a host name
        /// resolved to, at the moment libcurl is about to connect to it
        /// (`CURLOPT_OPENSOCKETFUNCTION`): before any packet is sent, for every connection,
        /// every address libcurl tries (IPv6 and IPv4 alike) and every redirect hop, since each
        /// hop is an exchange of its own. The address checked is the one connected to, so a
        /// name that resolves to a public address for a check and to a private one for the
        /// connection (DNS rebinding) cannot slip through. ``/PictorCore/ConnectAddressPolicy/allowAll``
        /// by default: nothing is refused, and nothing changes for a library user.
        ///
        /// ``/PictorCore/ConnectAddressPolicy/publicOnly`` refuses loopback, private (RFC 1918,
        /// IPv6 unique-local `fc00::/7`), link-local (`169.254/16`, the cloud metadata service,
        /// and `fe80::/10`), CGNAT `100.64/10`, multicast, reserved `240/4`, `0/8` and `::`, and
        /// the IPv6 forms that carry such an IPv4 address (`::ffff:127.0.0.1`, NAT64, 6to4);
        /// see ``/PictorCore/AddressClass``. A refused connection fails with
        /// ``/PictorCore/DataLoadingError/Kind/addressNotAllowed``, not retried.
        ///
        /// - A connection kept alive is reused only by this transport, whose policy is the
        ///   same for every exchange, so every reused connection was checked when it opened.
        /// - With a policy that refuses anything, the `http_proxy`, `https_proxy` and
        ///   `ALL_PROXY` variables are ignored: a proxy would resolve and connect on Pictor's
        ///   behalf, out of the policy's sight (and a proxy on a private address would itself be
        ///   refused).
        public var connectAddressPolicy: ConnectAddressPolicy = .allowAll
        /// Whether to ask for compressed bodies, `true` by default: `Accept-Encoding` lists every
        /// encoding this libcurl was built with (gzip and deflate, and br and zstd when
        /// available) and the body is decoded before it is returned. With `false`, no
        /// `Accept-Encoding` is sent and bodies are returned as received.
        public var acceptsEncoding: Bool = true

        /// Creates a configuration with the defaults above.
        public init() {}

        /// Trusts the certificate authorities that the environment names, as the curl
        /// command-line tool does, unless ``caFile`` or ``caPath`` is set already (a setting of
        /// the caller's wins over the environment, as curl's `--cacert` and `--capath` do) or
        /// ``verifiesPeer`` is off (as with curl's `--insecure`):
        /// - `CURL_CA_BUNDLE`, when set, becomes ``caFile``, and the two others are not read;
        /// - otherwise `SSL_CERT_DIR` becomes ``caPath`` and `SSL_CERT_FILE` becomes
        ///   ``caFile`` (either, or both).
        ///
        /// A variable set to the empty string counts as unset (curl would hand libcurl the empty
        /// path and fail every HTTPS transfer). libcurl reads none of these variables itself, and
        /// no configuration does until this is called: `Configuration()` trusts libcurl's
        /// built-in locations only.
        ///
        /// - Parameter environment: the variables; the process environment by default.
        /// - Returns: the names of the variables used, in the order above
        ///   (`["SSL_CERT_DIR", "SSL_CERT_FILE"]`, say); empty when none was.
        @discardableResult
        public mutating func trustCertificateAuthorities(
            fromEnvironment environment: [String: String] = ProcessInfo.processInfo.environment
        ) -> [String] {
            guard verifiesPeer, caFile == nil, caPath == nil else { return [] }
            func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
            if let bundle = value("CURL_CA_BUNDLE") {
                caFile = bundle
                return ["CURL_CA_BUNDLE"]
            }
            var used: [String] = []
            if let directory = value("SSL_CERT_DIR") {
                caPath = directory
                used.append("SSL_CERT_DIR")
            }
            if let file = value("SSL_CERT_FILE") {
                caFile = file
                used.append("SSL_CERT_FILE")
            }
            return used
        }
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
