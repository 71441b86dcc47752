import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``DataTransport`` on `URLSession` (FoundationNetworking on Linux), for platforms without
/// libcurl's development files; the `Pictor` product uses `CurlTransport` on Linux instead.
///
/// What it does beyond a plain `URLSession`:
/// - the session is `.ephemeral` with `urlCache = nil` and no cookies (Pictor does its own HTTP
///   caching);
/// - redirects are never followed: the 3xx response is returned for ``DataLoader`` to decide;
/// - the overall ``TransportRequest/timeout`` is enforced here (URLSession on Linux ignores its
///   resource timeout); the idle timeout is rounded **up** to whole seconds (URLSession
///   truncates `0.5` to `0`);
/// - the size cap cancels the task as soon as `Content-Length` or the bytes received exceed it;
/// - `Task` cancellation throws `CancellationError` at once;
/// - requests without a `User-Agent` get ``Configuration/userAgent``.
///
/// ## Known FoundationNetworking limitations (swift-corelibs-foundation on libcurl 7.88)
/// - **CPU while waiting**: a request that waits on the server keeps one core busy (about
///   18,000 `epoll_wait`/`poll` calls a second) until it ends; `curl` itself does not.
/// - **Cancel latency**: `URLSessionTask.cancel()` waits for the session's work queue, which
///   libcurl keeps busy while a fast body streams in, so the socket may close only after tens
///   of MB more were read (dropped, not kept).
/// - **Throughput**: every chunk is copied through Foundation; downloads reach a fraction of
///   `curl`'s throughput at several times its CPU (see `docs/benchmarks.md`).
/// - **Memory on every request**: swift-corelibs-foundation 6.3 leaks the parts of the URL it
///   parses for each request (4 allocations: 45 bytes for a 26-character URL, 100 for 75), whether
///   the session is invalidated or not: its host check frees libcurl's URL handle with
///   `curl_free` instead of `curl_url_cleanup`. Its main branch has the fix; a long-running
///   process that loads millions of URLs should use `CurlTransport`.
/// - **Files under `$HOME`**: creating any `URLSessionConfiguration` creates
///   `~/.cache/org.swift.foundation.URLCache/<process>` and `~/.local/share/<directory>`
///   (empty); `XDG_CACHE_HOME` and `XDG_DATA_HOME` move them.
public final class URLSessionTransport: DataTransport, Sendable {
    /// How the session is set up.
    public struct Configuration: Sendable {
        /// Connections per host, `6` by default (URLSession's default).
        public var maximumConnectionsPerHost: Int = 6
        /// Headers added to every request (a request's own headers win). Empty by default.
        public var additionalHeaders: [String: String] = [:]
        /// The `User-Agent` sent when neither the request nor ``additionalHeaders`` sets one;
        /// `nil` leaves URLSession's own. ``URLSessionTransport/defaultUserAgent`` by default.
        public var userAgent: String? = URLSessionTransport.defaultUserAgent

        /// Creates a configuration with the defaults above.
        public init() {}
    }

    /// The default `User-Agent`: `Pictor/<version> (+swift; Linux)`, for example
    /// `Pictor/0.1.0 (+swift; Linux)` (the version is the library's, as in `pictor --version`).
    public static let defaultUserAgent = PictorVersion.userAgent

    /// The configuration the transport was created with.
    public let configuration: Configuration
    let session: URLSession
    let delegate: SessionDelegate

    /// Creates a transport with its own ephemeral session.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.httpCookieAcceptPolicy = .never
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpMaximumConnectionsPerHost = max(1, configuration.maximumConnectionsPerHost)
        if !configuration.additionalHeaders.isEmpty {
            sessionConfiguration.httpAdditionalHeaders = configuration.additionalHeaders
        }
        let delegate = SessionDelegate()
        self.delegate = delegate
        self.session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
    }

    // Apple's URLSession keeps its delegate, and itself, until it is invalidated
    // (FoundationNetworking frees an unreferenced one either way); running exchanges are cancelled.
    deinit { session.invalidateAndCancel() }

    /// Sends one exchange; see the type's documentation for what is handled.
    ///
    /// - Throws: ``DataLoadingError`` or `CancellationError`.
    public func send(_ exchange: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        guard let scheme = exchange.urlRequest.url?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw DataLoadingError.unsupportedURL
        }
        var request = exchange.urlRequest
        let idle = Self.wholeSeconds(exchange.idleTimeout)
        request.timeoutInterval = idle
        request.httpShouldHandleCookies = false
        for (name, value) in exchange.defaultHeaders where request.value(forHTTPHeaderField: name) == nil {
            request.setValue(value, forHTTPHeaderField: name)
        }
        if let userAgent = configuration.userAgent, request.value(forHTTPHeaderField: "User-Agent") == nil,
           !configuration.additionalHeaders.keys.contains(where: { $0.lowercased() == "user-agent" }) {
            request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        }
        let task = session.dataTask(with: request)
        let handler = TaskHandler(exchange: exchange, idleTimeout: idle) { Self.cancelInBackground(task) }
        delegate.register(handler, for: task.taskIdentifier)
        // A Dispatch timer, not a sleeping task: the cooperative pool may be saturated exactly
        // when a deadline matters. It holds the handler weakly and not the exchange: a cancelled
        // work item keeps its closure until the deadline, and the handler holds the body and the
        // task (so the session), the exchange its callbacks, which would all outlive the
        // exchange by the whole timeout.
        let timer = DispatchWorkItem { [weak handler, reported = exchange.reportedTimeout] in
            handler?.fail(.timedOut(seconds: reported))
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0, min(exchange.timeout, 1e6)), execute: timer)
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if handler.start(continuation) { task.resume() } else { delegate.unregister(task.taskIdentifier) }
            }
        } onCancel: {
            handler.cancel()
        }
    }

    /// Cancels `task` off the calling thread: `URLSessionTask.cancel()` waits (`workQueue.sync`)
    /// for FoundationNetworking's work queue, which libcurl keeps busy while a fast body streams
    /// in, so called on the delegate queue it would stall every delegate callback.
    static func cancelInBackground(_ task: URLSessionTask) {
        DispatchQueue.global(qos: .utility).async { task.cancel() }
    }

    /// `seconds` rounded up to a whole number, at least 1 (URLSession on Linux truncates).
    static func wholeSeconds(_ seconds: Double) -> Double {
        guard seconds.isFinite, seconds > 0 else { return seconds.isInfinite && seconds > 0 ? 1e6 : 1 }
        return max(1, seconds.rounded(.up))
    }
}
