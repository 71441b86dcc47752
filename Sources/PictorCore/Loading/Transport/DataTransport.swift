import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Performs one HTTP exchange for ``DataLoader``: the network seam under the loading stage.
///
/// A transport sends exactly the request it is given and returns the first final response
/// (it never follows a redirect: a 3xx comes back as is, and ``DataLoader`` decides whether to
/// follow it). It owns what only the wire can see:
/// - content decoding (`Accept-Encoding`); the body it returns is decoded, so its length is not
///   comparable with an encoded `Content-Length`;
/// - truncation: a body that ends before its `Content-Length` (counted on the wire) fails with
///   ``DataLoadingError/truncated(received:expected:)``;
/// - the limits in ``TransportRequest``: connect, idle and overall timeouts and the body-size
///   cap, each failing the exchange at once with its ``DataLoadingError``;
/// - cancellation: cancelling the calling task throws `CancellationError` promptly and releases
///   the connection.
///
/// It does not validate statuses or content (``DataLoader`` does, in one place).
///
/// Implementations: ``URLSessionTransport`` (FoundationNetworking, in `PictorCore`) and
/// `CurlTransport` (libcurl's multi interface, in `PictorCurl`; the default of the `Pictor`
/// product on Linux).
public protocol DataTransport: Sendable {
    /// Sends `request` and returns the response with its whole (decoded) body.
    ///
    /// `nonisolated(nonsending)`: it runs on its caller's executor, as the loader's own steps
    /// do, so that a call costs no executor check at entry and return (a conformance declared
    /// plain `async` still satisfies it, and then runs on the global executor as before).
    ///
    /// - Throws: ``DataLoadingError`` (`truncated`, `responseTooLarge`, `idleTimeout`,
    ///   `timedOut`, `transport`), or `CancellationError`.
    nonisolated(nonsending) func send(_ request: TransportRequest) async throws -> TransportResponse
}

/// One exchange for a ``DataTransport``: the request and its limits.
public struct TransportRequest: Sendable {
    /// The request as it goes on the wire: an `http` or `https` URL, method, headers, body.
    public var urlRequest: URLRequest
    /// Seconds allowed to establish the connection (TCP and TLS). `10` by default.
    public var connectTimeout: Double
    /// Seconds without receiving a byte before the exchange fails with
    /// ``DataLoadingError/idleTimeout(seconds:)``. `30` by default.
    public var idleTimeout: Double
    /// Seconds for the whole exchange, connect to last byte, before it fails with
    /// ``DataLoadingError/timedOut(seconds:)``. `60` by default; ``DataLoader`` passes the time
    /// left before its overall deadline.
    public var timeout: Double
    /// The overall deadline reported in ``DataLoadingError/timedOut(seconds:)``, in seconds
    /// (the loader's whole budget, which may be longer than ``timeout``). Defaults to ``timeout``.
    public var reportedTimeout: Double
    /// Largest decoded body accepted, in bytes; past it the exchange stops at once with
    /// ``DataLoadingError/responseTooLarge(limit:)`` (a `Content-Length` above it, on an
    /// unencoded response, fails before the body is read). `nil` for no cap (the default).
    public var maximumBodySize: Int64?
    /// Called with the decoded bytes received so far and the expected total (`Content-Length`
    /// of an unencoded response, else `-1`): once when the headers arrive, then as the body
    /// streams. May be called on any thread; keep it cheap.
    public var progress: (@Sendable (TransferProgress) -> Void)?
    /// Called with each piece of the decoded body as it arrives, with the response's status
    /// code and the piece's offset in the body (`0` starts a new body: forget earlier pieces).
    /// May be called on any thread; keep it cheap. A transport that cannot stream never calls
    /// it. `nil` by default.
    public var bodyReceived: (@Sendable (_ status: Int, _ offset: Int64, _ piece: Data) -> Void)?
    /// Headers sent only when ``urlRequest`` has none of the same name (names compared without
    /// regard to case); empty by default. ``DataLoader`` puts its
    /// ``DataLoader/Configuration/acceptHeader`` here rather than into the request: on Linux,
    /// FoundationNetworking copies and re-validates the whole request for every header set.
    public var defaultHeaders: [String: String]

    /// Creates an exchange with the defaults above.
    public init(
        urlRequest: URLRequest, connectTimeout: Double = 10, idleTimeout: Double = 30, timeout: Double = 60,
        reportedTimeout: Double? = nil, maximumBodySize: Int64? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil, defaultHeaders: [String: String] = [:]
    ) {
        self.urlRequest = urlRequest
        self.defaultHeaders = defaultHeaders
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
        self.timeout = timeout
        self.reportedTimeout = reportedTimeout ?? timeout
        self.maximumBodySize = maximumBodySize
        self.progress = progress
    }
}

/// What a ``DataTransport`` returns: the final response of one exchange and its decoded body.
public struct TransportResponse: Sendable {
    /// The response's status line and header fields, and the URL it answered.
    public var head: HTTPResponseHead
    /// The whole body, content-decoded. Empty for a 304, a HEAD or an empty body.
    public var body: Data

    /// Creates a response from its head: what a transport that parses the wire itself returns,
    /// without building an `HTTPURLResponse`.
    public init(head: HTTPResponseHead, body: Data) {
        self.head = head
        self.body = body
    }

    /// Creates a response from a Foundation response (its head is read from it).
    public init(response: HTTPURLResponse, body: Data) {
        self.init(head: HTTPResponseHead(response), body: body)
    }

    /// The response as Foundation's `HTTPURLResponse`, built from ``head`` on each read (a
    /// response Foundation refuses reads as status and URL only); setting it replaces the head.
    public var response: HTTPURLResponse {
        get { head.httpURLResponse }
        set { head = HTTPResponseHead(newValue) }
    }
}
