import Foundation

/// A real nginx serving a folder on `127.0.0.1` over HTTPS, with HTTP/2 offered (ALPN) and
/// HTTP/1.1 otherwise, under a server certificate from a ``TestCertificateAuthority``; the same
/// folder is served over cleartext HTTP/1.1 on ``nginx``'s own port.
///
/// With `requiresClientCertificate`, nginx asks every HTTPS client for a certificate and accepts
/// only one signed by `clientAuthority` (`ssl_verify_client on`). nginx completes the handshake
/// either way and answers a client without one, or with one it does not trust, with
/// `400 Bad Request` ("No required SSL certificate was sent").
///
/// - Important: call ``stop()`` when done (also done on deinit); it stops nginx and removes its
///   temporary directory, not the authority's.
public final class HTTPSNginxServer: Sendable {
    /// The nginx process (its cleartext port, access log and folder).
    public let nginx: NginxServer
    /// The HTTPS port on `127.0.0.1`.
    public let httpsPort: Int

    /// `https://127.0.0.1:<httpsPort>`.
    public var baseURL: URL { URL(string: "https://127.0.0.1:\(httpsPort)")! }

    /// The HTTPS URL of `path` (starting with `/`, relative to the served folder, may carry a
    /// query).
    public func url(_ path: String) -> URL { URL(string: "https://127.0.0.1:\(httpsPort)\(path)")! }

    /// Starts nginx serving `root` over HTTPS and HTTP, and waits until both ports accept
    /// connections.
    ///
    /// - Parameters:
    ///   - root: the folder to serve (must exist).
    ///   - authority: whose server certificate and key nginx presents.
    ///   - requiresClientCertificate: whether every HTTPS request needs a client certificate
    ///     signed by `clientAuthority`; `false` by default.
    ///   - clientAuthority: the CA client certificates must come from; `authority` when `nil`.
    /// - Throws: ``TestServerError/unavailable(_:)`` without nginx;
    ///   ``TestServerError/failedToStart(_:)`` when it does not come up after 3 attempts on
    ///   different ports.
    public init(
        root: URL, authority: TestCertificateAuthority, requiresClientCertificate: Bool = false,
        clientAuthority: TestCertificateAuthority? = nil
    ) throws {
        var lastError: any Error = TestServerError.failedToStart("nginx")
        for _ in 0..<3 {
            // A port free a moment ago; another process may take it first, so a failed start
            // is tried again on another.
            let port = try LoopbackHTTP.freePort()
            var config = """
                    listen 127.0.0.1:\(port) ssl http2;
                    ssl_certificate \(authority.serverCertificate.path);
                    ssl_certificate_key \(authority.serverKey.path);
                """
            if requiresClientCertificate {
                config += """

                        ssl_client_certificate \((clientAuthority ?? authority).certificate.path);
                        ssl_verify_client on;
                    """
            }
            do {
                nginx = try NginxServer.start(root: root, extraServerConfig: config)
                httpsPort = port
                return
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    deinit { stop() }

    /// Stops nginx; idempotent.
    public func stop() { nginx.stop() }
}
