import Foundation

/// Why loading the bytes of a request failed.
public enum DataLoadingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with a status outside 200..<300 (the body is discarded, never cached).
    case statusCode(Int)
    /// The response body was empty.
    case emptyBody
    /// The body's first bytes are not a known image format (for example an HTML page); the
    /// `Content-Type` the server sent, if any, is attached for the message only.
    case notAnImage(contentType: String?)
    /// The body ended before its `Content-Length`: `received` of `expected` bytes.
    case truncated(received: Int64, expected: Int64)
    /// The body is larger than the configured limit, in bytes.
    case responseTooLarge(limit: Int64)
    /// Pictor's own overall timeout elapsed, in seconds.
    case timedOut(seconds: Double)
    /// More redirects than allowed, or a redirect loop.
    case tooManyRedirects
    /// The URL scheme cannot be loaded (only http, https, file and data are).
    case unsupportedURL
    /// A cache-only request found nothing in the cache.
    case notCached
    /// The URL is remembered as permanently failed (404/410) and was not requested again.
    case knownFailure(statusCode: Int)
    /// A transport error (connection refused, reset, DNS, TLS…): the `URLError` code and its text.
    case transport(code: Int, message: String)

    public var description: String {
        switch self {
        case .statusCode(let code): "HTTP status \(code)"
        case .emptyBody: "empty response body"
        case .notAnImage(let type): "response is not an image" + (type.map { " (Content-Type \($0))" } ?? "")
        case .truncated(let r, let e): "body truncated: \(r) of \(e) bytes"
        case .responseTooLarge(let limit): "response larger than \(limit) bytes"
        case .timedOut(let s): "timed out after \(s) s"
        case .tooManyRedirects: "too many redirects or a redirect loop"
        case .unsupportedURL: "unsupported URL scheme"
        case .notCached: "not in the cache (cache-only request)"
        case .knownFailure(let code): "previously failed with HTTP \(code)"
        case .transport(let code, let message): "transport error \(code): \(message)"
        }
    }

    /// Whether a retry may succeed: timeouts, transport errors, 5xx and 429.
    public var isTransient: Bool {
        switch self {
        case .timedOut, .transport, .truncated: true
        case .statusCode(let code): code >= 500 || code == 429 || code == 408
        default: false
        }
    }
}
