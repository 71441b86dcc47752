import Foundation
import PictorCore
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``/PictorCore/DataTransport`` on libcurl's multi interface: one event thread and one multi handle per
/// transport, shared by every exchange.
///
/// Why not URLSession: on Linux, FoundationNetworking spins in libcurl's poll loop while it
/// waits and copies every chunk through Foundation, at several times curl's CPU per download.
/// Here one thread sleeps in `curl_multi_poll` until a socket, a timer or a new request needs
/// it, and each body is written once into one growing buffer that becomes the returned `Data`.
///
/// What it does:
/// - **Connections**: keep-alive reuse across requests, HTTP/2 multiplexing over TLS (see
///   ``Configuration/httpVersion``), at most ``Configuration/maximumConnectionsPerHost`` per
///   host; requests beyond it wait for a free connection. Like `curl` (and URLSession on
///   Linux), libcurl honours the `http_proxy`, `https_proxy` and `no_proxy` environment
///   variables, unless ``Configuration/connectAddressPolicy`` refuses any address.
/// - **Addresses**: ``Configuration/connectAddressPolicy`` (nothing refused by default) is
///   checked on each address libcurl is about to connect to, after DNS, on every hop; a
///   refused one fails with ``/PictorCore/DataLoadingError/Kind/addressNotAllowed`` before any
///   packet reaches it.
/// - **Requests** go out exactly as given: method (a `GET` or `HEAD` sends no body; other methods
///   with an `httpBody` send it), every header of the `URLRequest`, the URL string unchanged
///   (percent-encoding is the caller's job). ``Configuration/userAgent`` is added only when the
///   request has no `User-Agent`; `Expect: 100-continue` is never sent. `httpBodyStream`,
///   `timeoutInterval` and the `URLRequest`'s cache and cookie settings are ignored (no
///   cookies are stored or sent; the limits come from ``/PictorCore/TransportRequest``).
/// - **Responses**: the first final response is returned whatever its status: a 3xx with its
///   `Location` (redirects are never followed here; ``/PictorCore/DataLoader`` applies Pictor's policy),
///   a 404 with its body. The response's URL is the request's. Repeated header fields are
///   joined with `", "`. Headers are returned as received: for a content-encoded body,
///   `Content-Length` (and so `expectedContentLength`) is the encoded length, not the returned
///   body's.
/// - **Content decoding**: with ``Configuration/acceptsEncoding`` (the default), gzip, deflate,
///   br and zstd bodies (as far as this libcurl supports them) come back decoded.
/// - **Limits** from ``/PictorCore/TransportRequest``:
///   - `connectTimeout` (TCP and TLS) is libcurl's; it fails with
///     ``/PictorCore/DataLoadingError/transport(code:message:)`` and `URLError.timedOut`'s code (`-1001`),
///     so it stays a transient, retryable transport failure;
///   - `timeout` counts from the call of ``send(_:)`` (waiting for a free connection included)
///     and fails with ``/PictorCore/DataLoadingError/timedOut(seconds:)`` carrying `reportedTimeout`;
///   - `idleTimeout` counts from the moment a connection is ready for the request, restarts
///     with every byte received (head or body), and fails with
///     ``/PictorCore/DataLoadingError/idleTimeout(seconds:)``;
///   - `maximumBodySize`: an unencoded `Content-Length` above it fails before any body byte is
///     read; otherwise the transfer stops as soon as the decoded body passes it. Both fail with
///     ``/PictorCore/DataLoadingError/responseTooLarge(limit:)`` and close the connection at once.
/// - **Truncation**: a body that ends (or whose connection is reset) before its declared
///   `Content-Length` fails with ``/PictorCore/DataLoadingError/truncated(received:expected:)``, counting
///   body bytes on the wire. A decoded body shorter than an encoded `Content-Length` is normal.
/// - **Other failures** are ``/PictorCore/DataLoadingError/transport(code:message:)`` with a `URLError`
///   code where one means the same (`cannotFindHost`, `cannotConnectToHost`,
///   `secureConnectionFailed`, `serverCertificateUntrusted`, `networkConnectionLost`,
///   `badServerResponse`, `cannotDecodeContentData`, else `unknown`) and libcurl's message; a
///   URL that is not `http` or `https` fails with ``/PictorCore/DataLoadingError/unsupportedURL``.
/// - **Progress**: `TransportRequest.progress` is called on the event thread once when the
///   head arrives (`completed` 0, `total` the unencoded `Content-Length` or `-1`), then at
///   most once per read from the network while the body grows, and always with the final count.
///   Keep it short: the event thread serves every transfer of the transport.
/// - **Cancellation**: cancelling the calling task throws `CancellationError` at once and the
///   event thread removes the transfer (closing its connection) promptly; a task cancelled
///   before ``send(_:)`` fails without touching the network.
///
/// The event thread ends, and the multi handle is cleaned up, on ``shutdown()`` or when the
/// transport is deinitialised. Requires libcurl 7.85 or later (Debian 12 has 7.88).
public final class CurlTransport: DataTransport, Sendable {
    /// The configuration the transport was created with.
    public let configuration: Configuration
    let loop: CurlEventLoop?
    private let nextID = Atomic<UInt64>(1)

    /// Creates a transport and starts its event thread.
    ///
    /// If libcurl cannot be initialised (out of memory), the transport is created anyway and
    /// every ``send(_:)`` fails with ``/PictorCore/DataLoadingError/transport(code:message:)``.
    ///
    /// - Parameter configuration: connections, HTTP version, TLS verification and the User-Agent;
    ///   the defaults of ``Configuration`` by default.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.loop = CurlEventLoop(configuration: configuration)
    }

    deinit { loop?.shutdown() }

    /// libcurl's version and the libraries it was built with, e.g.
    /// `libcurl/7.88.1 OpenSSL/3.0.15 zlib/1.2.13 brotli/1.0.9 zstd/1.5.4 … nghttp2/1.52.0`.
    public static var libcurlVersion: String { CurlLibrary.version }

    /// Sends `request` and returns the first final response with its whole decoded body; see
    /// the type's documentation for the limits, errors and progress.
    ///
    /// - Parameter request: the request and its limits (timeouts, maximum body size) and progress
    ///   callback.
    /// - Throws: ``/PictorCore/DataLoadingError`` (`unsupportedURL`, `truncated`, `responseTooLarge`,
    ///   `idleTimeout`, `timedOut`, `transport`), or `CancellationError` when the calling task is
    ///   cancelled.
    nonisolated(nonsending) public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        guard let url = request.urlRequest.url, let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https" else { throw DataLoadingError.unsupportedURL }
        guard let loop else {
            throw DataLoadingError.transport(code: URLError.unknown.rawValue, message: "libcurl could not be initialised")
        }
        guard let headers = CurlRequestHeaders(request: request) else {
            throw DataLoadingError.transport(code: URLError.unknown.rawValue, message: "out of memory for the request headers")
        }
        let id = nextID.add(1, ordering: .relaxed).oldValue
        let exchange = Exchange(id: id, request: request, url: url, submitted: CurlLibrary.now(), headers: headers)
        let received: ReceivedResponse = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Exchange.Continuation) in
                guard exchange.enqueue(continuation) else { return }
                if !loop.submit(exchange) { exchange.finish(.failure(Self.shutDownError)) }
            }
        } onCancel: {
            if exchange.cancel() { loop.cancel(exchange.id) }
        }
        return received.transportResponse()
    }

    /// Stops the transport: exchanges still running, and every later ``send(_:)``, fail with
    /// ``/PictorCore/DataLoadingError/transport(code:message:)`` (`URLError.cancelled`'s code); the event
    /// thread closes the connections, cleans up and ends. Idempotent; also done on deinit.
    public func shutdown() { loop?.shutdown() }

    /// The error of exchanges cut short, or refused, by ``shutdown()``.
    static let shutDownError = DataLoadingError.transport(code: URLError.cancelled.rawValue, message: "the transport was shut down")
}
