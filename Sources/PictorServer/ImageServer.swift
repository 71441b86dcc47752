import Foundation
import PictorService
import Synchronization

/// An HTTP/1.1 server for an ``/PictorService/ImageService``, over libmicrohttpd: keep-alive,
/// a thread pool of epoll loops, limits on slow and greedy clients, `/health`, `/metrics`, an
/// access log, and a graceful drain.
///
/// ```swift
/// var configuration = ImageServer.Configuration()
/// configuration.listen = try ListenAddress(parsing: "127.0.0.1:8080")
/// let server = try ImageServer(configuration: configuration, service: service)
/// // … on SIGTERM:
/// await server.stop(drainTimeout: 10)
/// ```
///
/// It listens once ``init(configuration:service:)`` returns. Every request but the two below
/// goes to ``/PictorService/ImageService/handle(_:)`` with its target exactly as received
/// (percent-encoding and query kept: the signature is over those bytes); the connection is
/// suspended while the answer is made on Swift's task pool, so the server's threads never wait
/// for image work, and resumed to send it. A client that hangs up meanwhile is noticed within
/// about 200 ms (a peek at the suspended connections' sockets): its request's work is
/// cancelled (work shared with other requests goes on for them), it is logged `499` with no
/// bytes and counted (`pictor_server_client_aborts_total`), and libmicrohttpd closes its
/// connection at the idle timeout.
///
/// - `GET /health`: the service's ``/PictorService/ImageService/health()`` as `text/plain`:
///   200 and `ok`, then a line per configured tier (`disk: ok`, `shared: ok`, or `shared:
///   bypassed: …` for a Redis that does not answer, which loads bypass); 503 and `unhealthy`
///   when a tier is unusable (`disk: unusable: the cache directory is missing`); 503
///   `draining` once ``stop(drainTimeout:)`` has begun (so a load balancer stops sending). A
///   probe within the service's ``/PictorService/ImageService/Configuration/healthCheckInterval``
///   answers at once; otherwise the connection waits for one, as for an image, at most the
///   service's ``/PictorService/ImageService/Configuration/healthCheckTimeout`` for Redis.
/// - `GET /metrics`: ``PrometheusMetrics``.
///
/// Both answer `GET` and `HEAD`; another method is 405 with `Allow: GET, HEAD`. Requests the
/// server answers itself carry `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`.
/// libmicrohttpd adds `Date` and writes `Content-Length`.
public final class ImageServer: Sendable {
    /// What the server was started with.
    public let configuration: Configuration
    /// The service that answers image requests.
    public let service: ImageService
    /// Where the server listens, as bound: a TCP port of 0 is replaced by the one chosen.
    public let address: ListenAddress
    let core: ServerCore
    private let daemon: Daemon
    private let listener: ListeningSocket

    private enum Lifecycle { case running, stopping, stopped }
    private let lifecycle = Mutex(Lifecycle.running)

    /// Binds `configuration.listen` and starts serving `service`.
    ///
    /// - Throws: ``ServerError``: ``ServerError/Kind/invalidConfiguration`` for a value out of
    ///   its range; ``ServerError/Kind/invalidAddress`` for a host that does not resolve;
    ///   ``ServerError/Kind/cannotListen`` when the socket cannot be bound (in use, permission);
    ///   ``ServerError/Kind/daemonFailed`` when libmicrohttpd does not start.
    public init(configuration: Configuration = Configuration(), service: ImageService) throws(ServerError) {
        try Self.check(configuration)
        self.configuration = configuration
        self.service = service
        let listener = try ListeningSocket.open(configuration.listen)
        let core = ServerCore(service: service, configuration: configuration)
        do {
            daemon = try Daemon(socket: listener, configuration: configuration, core: core)
        } catch {
            close(listener.descriptor)
            throw error
        }
        self.listener = listener
        self.core = core
        address = listener.address
    }

    deinit {
        // Not stopped: stop now, answering what is in flight 503.
        if lifecycle.withLock({ $0 }) == .running {
            _ = core.beginDrain()
            stopListening()
            core.answerRemaining()
            daemon.stop()
            core.stopWatching()
        }
    }

    /// Whether ``stop(drainTimeout:)`` has begun.
    public var isDraining: Bool { lifecycle.withLock { $0 } != .running }

    /// The `/metrics` page now (``PrometheusMetrics``).
    public var metricsPage: String { core.metricsPage() }

    /// Stops gracefully: stops accepting connections at once (the listening socket is closed,
    /// so new connections are refused), answers any new request on an open keep-alive
    /// connection 503 with `Connection: close`, and lets the requests in flight finish and be
    /// sent for up to `drainTimeout` seconds. Those still unanswered then are answered 503
    /// (their work cancelled), given up to a second to be sent, and every connection is
    /// closed. Returns when the server's threads have ended. A second call returns at once.
    ///
    /// - Parameter drainTimeout: seconds to wait for requests in flight, 0 or more.
    public func stop(drainTimeout: Double) async {
        let first = lifecycle.withLock { state -> Bool in
            guard state == .running else { return false }
            state = .stopping
            return true
        }
        guard first else { return }
        _ = core.beginDrain()
        stopListening()
        if await !core.waitUntilIdle(timeout: max(0, drainTimeout)) {
            core.answerRemaining()
            _ = await core.waitUntilIdle(timeout: 1)
        }
        daemon.stop()
        core.stopWatching()
        lifecycle.withLock { $0 = .stopped }
    }

    private func stopListening() {
        daemon.quiesce()
        close(listener.descriptor)
        if case .unix(let path) = address { unlink(path) }
    }

    private static func check(_ configuration: Configuration) throws(ServerError) {
        let ranges: [(String, Int, ClosedRange<Int>)] = [
            ("workers", configuration.workers, 1...256),
            ("idleTimeout", configuration.idleTimeout, 1...3600),
            ("headerTimeout", configuration.headerTimeout, 1...3600),
            ("maxConnections", configuration.maxConnections, 1...65536),
            ("maxConnectionsPerIP", configuration.maxConnectionsPerIP, 1...65536),
            ("maxHeaderBytes", configuration.maxHeaderBytes, 4096...(1 << 20)),
            ("maxDiscardedBodyBytes", configuration.maxDiscardedBodyBytes, 0...Int.max),
        ]
        for (name, value, range) in ranges where !range.contains(value) {
            throw ServerError(.invalidConfiguration, "\(name) is \(value), outside \(range.lowerBound)...\(range.upperBound)")
        }
    }
}
