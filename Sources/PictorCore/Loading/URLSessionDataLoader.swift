import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The network transport on `URLSession` (FoundationNetworking on Linux): one delegate-based
/// session, so body chunks and progress stream as they arrive.
///
/// What it does beyond a plain `URLSession` (see `linux-notes.md` §2 for why):
/// - the session is `.ephemeral` with `urlCache = nil` and no cookies (Pictor does its own HTTP
///   caching; URLSession on Linux neither stores nor revalidates);
/// - `Task` cancellation stops the transfer and throws `CancellationError` (not `URLError`);
/// - idle timeouts are rounded **up** to whole seconds (URLSession truncates `0.5` to `0`);
/// - `file://` URLs are read from disk (URLSession cannot) and `data:` URLs are decoded here;
/// - redirects are followed up to ``Configuration/maximumRedirects`` with loop detection, or
///   not at all (the 3xx response is returned) when ``Configuration/followsRedirects`` is false;
/// - errors are ``DataLoadingError``s: `truncated` for a body cut short of its
///   `Content-Length`, `timedOut`, `tooManyRedirects`, `unsupportedURL`, else `transport`.
///
/// - redirects go only `http` → `http`/`https` and `https` → `https`; a `Location` with any other
///   scheme (`file:`, `data:`, …) or an https → http downgrade fails with
///   ``DataLoadingError/redirectNotAllowed(fromScheme:toScheme:)`` and is never loaded;
/// - requests without a `User-Agent` get ``Configuration/userAgent``
///   (``defaultUserAgent``, `Pictor/<version> (+swift; Linux)`).
///
/// It does **not** check status codes or content: wrap it in ``DataLoader`` for validation,
/// coalescing, priorities and retries.
///
/// When the response headers arrive, `didReceiveChunk` is first called once with an empty chunk
/// and the expected total, so a caller can reject an oversized `Content-Length` up front.
///
/// Cancelling (the calling `Task`, or ``DataLoader`` past its size cap or deadline) throws
/// `CancellationError` at once; the `URLSessionTask` is cancelled on a background queue and
/// chunks still in flight are dropped.
///
/// ## Known FoundationNetworking limitations (swift-corelibs-foundation on libcurl 7.88)
/// - **CPU while waiting**: any request that waits on the server (no response yet, or a body
///   that stalled) keeps one core busy, about 18,000 `epoll_wait`/`epoll_ctl`/`poll` calls a
///   second, until it ends. A plain `URLSession` data task does the same (with or without a
///   delegate); `curl` itself does not. Pictor cannot fix it inside URLSession; it bounds it:
///   ``DataLoader`` ends every request at its overall deadline and lowers the idle timeout to
///   the time left, and cancellation reaches libcurl promptly.
/// - **Cancel latency**: `URLSessionTask.cancel()` waits for the session's work queue, which
///   libcurl keeps busy while a fast body streams in, so the socket may be closed only after
///   tens or hundreds of MB more were read (bandwidth only: those chunks are dropped, not kept).
///   The response disposition of `didReceive(response:)` is ignored, and delegate callbacks
///   are queued without back-pressure.
/// - **Files under `$HOME`**: creating any `URLSessionConfiguration` (even `.ephemeral` with
///   `urlCache = nil`, cookies off) creates `~/.cache/org.swift.foundation.URLCache/<process>`
///   and `~/.local/share/<name of the executable's directory>` (both empty; Pictor writes
///   nothing there). Unavoidable short of not using URLSession; `XDG_CACHE_HOME` and
///   `XDG_DATA_HOME` move them.
public final class URLSessionDataLoader: DataLoading, Sendable {
    /// How the session is set up.
    public struct Configuration: Sendable {
        /// Idle timeout in seconds (no byte received for this long fails the transfer), rounded
        /// up to a whole second, at least 1. `60` by default (URLSession's default). A request's
        /// own `timeoutInterval` is used when it is smaller.
        public var idleTimeout: Double = 60
        /// Connections per host, `6` by default (URLSession's default).
        public var maximumConnectionsPerHost: Int = 6
        /// Whether redirects are followed here; `true` by default. ``DataLoader`` turns it off
        /// for its own transport and follows redirects itself.
        public var followsRedirects: Bool = true
        /// Redirect hops allowed when following, `10` by default (RFC 9110 §15.4 asks clients to
        /// detect loops; browsers allow about 20, Pictor's images rarely need more than 2).
        public var maximumRedirects: Int = 10
        /// Headers added to every request (a request's own headers win). Empty by default.
        public var additionalHeaders: [String: String] = [:]
        /// The `User-Agent` sent when neither the request nor ``additionalHeaders`` sets one;
        /// `nil` leaves URLSession's own (`<process name> (unknown version)` on Linux).
        /// ``URLSessionDataLoader/defaultUserAgent`` by default.
        public var userAgent: String? = URLSessionDataLoader.defaultUserAgent

        /// Creates a configuration with the defaults above.
        public init() {}
    }

    /// The default `User-Agent`: `Pictor/<version> (+swift; Linux)`, for example
    /// `Pictor/0.1.0 (+swift; Linux)` (the version is the library's, the same as `pictor --version`).
    public static let defaultUserAgent = "Pictor/\(libraryVersion) (+swift; Linux)"

    /// Pictor's version, as in the default `User-Agent`.
    static let libraryVersion = PictorVersion.current

    /// The configuration the loader was created with.
    public let configuration: Configuration
    let session: URLSession
    let delegate: SessionDelegate

    /// Creates a loader with its own ephemeral session.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.httpCookieAcceptPolicy = .never
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpMaximumConnectionsPerHost = max(1, configuration.maximumConnectionsPerHost)
        sessionConfiguration.timeoutIntervalForRequest = Self.wholeSeconds(configuration.idleTimeout)
        if !configuration.additionalHeaders.isEmpty {
            sessionConfiguration.httpAdditionalHeaders = configuration.additionalHeaders
        }
        let delegate = SessionDelegate(
            followsRedirects: configuration.followsRedirects, maximumRedirects: configuration.maximumRedirects)
        self.delegate = delegate
        self.session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
    }

    deinit { session.invalidateAndCancel() }

    /// Loads `request`; see the type's documentation for what is handled.
    ///
    /// - Throws: ``DataLoadingError`` or `CancellationError`.
    public func loadData(
        for request: URLRequest,
        didReceiveChunk: @escaping @Sendable (_ chunk: Data, _ progress: TransferProgress) -> Void
    ) async throws -> URLResponse {
        try Task.checkCancellation()
        guard let url = request.url, let scheme = url.scheme?.lowercased() else { throw DataLoadingError.unsupportedURL }
        switch scheme {
        case "file": return try await Self.loadFile(url, didReceiveChunk: didReceiveChunk)
        case "data": return try Self.loadDataURL(url, didReceiveChunk: didReceiveChunk)
        case "http", "https": break
        default: throw DataLoadingError.unsupportedURL
        }
        var request = request
        let timeout = min(Self.wholeSeconds(request.timeoutInterval), Self.wholeSeconds(configuration.idleTimeout))
        request.timeoutInterval = timeout
        request.httpShouldHandleCookies = false
        if let userAgent = configuration.userAgent, request.value(forHTTPHeaderField: "User-Agent") == nil,
           !configuration.additionalHeaders.keys.contains(where: { $0.lowercased() == "user-agent" }) {
            request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        }
        let task = session.dataTask(with: request)
        let handler = TaskHandler(didReceiveChunk: didReceiveChunk, timeout: timeout)
        delegate.register(handler, for: task.taskIdentifier)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if handler.start(continuation) { task.resume() } else { delegate.unregister(task.taskIdentifier) }
            }
        } onCancel: {
            handler.cancel()
            Self.cancelInBackground(task)
        }
    }

    /// Cancels `task` off the calling thread: `URLSessionTask.cancel()` waits (`workQueue.sync`)
    /// for FoundationNetworking's work queue, which libcurl keeps busy while a fast body streams
    /// in, so called on the delegate queue it would stall every delegate callback (and let the
    /// undelivered chunks pile up in memory) until the body ended.
    static func cancelInBackground(_ task: URLSessionTask) {
        DispatchQueue.global(qos: .utility).async { task.cancel() }
    }

    /// `seconds` rounded up to a whole number, at least 1 (URLSession on Linux truncates).
    static func wholeSeconds(_ seconds: Double) -> Double {
        guard seconds.isFinite, seconds > 0 else { return 1 }
        return max(1, seconds.rounded(.up))
    }
}
