import Foundation
import Synchronization

/// `openssl s_server` on `127.0.0.1` and a free port: a TLS server that presents a
/// ``TestCertificateAuthority``'s server certificate and refuses, in the handshake itself, any
/// client without a certificate from that CA (`-Verify 1 -verify_return_error`).
///
/// That is how Envoy, HAProxy (`verify required`) or Go's `tls.RequireAndVerifyClientCert`
/// refuse a client, with a TLS alert, where nginx (``HTTPSNginxServer``) completes the handshake
/// and answers `400`. A client it accepts gets `openssl`'s status page for every request (`-www`:
/// HTTP/1.0 `200`, `text/html`, then the connection closes). HTTP/1.1 only (no ALPN).
///
/// - Important: call ``stop()`` when done (also done on deinit).
public final class OpenSSLServer: Sendable {
    /// The port on `127.0.0.1`.
    public let port: Int
    private let process: Mutex<Process?>

    /// `https://127.0.0.1:<port>/`.
    public var url: URL { URL(string: "https://127.0.0.1:\(port)/")! }

    /// Starts the server and waits (up to 10 s) until it accepts connections.
    ///
    /// - Parameters:
    ///   - authority: whose server certificate it presents, and whose CA a client certificate
    ///     must come from.
    ///   - tls12Only: speak TLS 1.2 only (`-tls1_2`), where a missing client certificate is
    ///     refused with a bare `handshake_failure` alert; `false` (TLS 1.3 as well, where it is
    ///     `certificate_required`) by default.
    /// - Throws: ``TestServerError/unavailable(_:)`` without `openssl`;
    ///   ``TestServerError/failedToStart(_:)`` when it does not listen after 3 attempts on
    ///   different ports.
    public init(authority: TestCertificateAuthority, tls12Only: Bool = false) throws {
        guard TestCertificateAuthority.isAvailable else { throw TestServerError.unavailable(TestCertificateAuthority.opensslBinary) }
        for _ in 0..<3 {
            let port = try LoopbackHTTP.freePort()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: TestCertificateAuthority.opensslBinary)
            process.arguments = [
                "s_server", "-accept", "127.0.0.1:\(port)", "-cert", authority.serverCertificate.path,
                "-key", authority.serverKey.path, "-CAfile", authority.certificate.path, "-Verify", "1",
                "-verify_return_error", "-www", "-quiet",
            ] + (tls12Only ? ["-tls1_2"] : [])
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            if LoopbackHTTP.waitUntilListening(port: port, timeout: 10, while: { process.isRunning }) {
                self.port = port
                self.process = Mutex(process)
                return
            }
            LoopbackHTTP.kill(process)
        }
        throw TestServerError.failedToStart("openssl s_server")
    }

    deinit { stop() }

    /// Stops the server (SIGKILL, then waits); idempotent.
    public func stop() {
        let process = self.process.withLock { p -> Process? in defer { p = nil }; return p }
        guard let process else { return }
        LoopbackHTTP.kill(process)
    }
}
