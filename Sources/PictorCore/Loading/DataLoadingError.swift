import Foundation

/// Why loading the bytes of a request failed.
public enum DataLoadingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with a status outside 200..<300 (the body is discarded, never cached).
    case statusCode(Int)
    /// The response body was empty.
    case emptyBody
    /// The body's first bytes are not a known image format (for example an HTML page): what
    /// they look like, and the `Content-Type` the server sent, if any (for the message only:
    /// the format always comes from the bytes).
    case notAnImage(contentType: String?, signature: ByteSignature)
    /// Local bytes (a `file:` or `data:` URL; `scheme` is the lower-cased scheme without the
    /// colon) are not a known image format: what they look like. There is no server here, so
    /// no `Content-Type` is quoted.
    case localNotAnImage(scheme: String, signature: ByteSignature)
    /// The body ended before its `Content-Length`: `received` of `expected` bytes.
    case truncated(received: Int64, expected: Int64)
    /// The body is larger than the configured limit, in bytes.
    case responseTooLarge(limit: Int64)
    /// Pictor's own overall deadline elapsed, in seconds: ``DataLoader/Configuration/timeout``
    /// bounds the whole request (connect, headers, body, every retry and backoff wait).
    case timedOut(seconds: Double)
    /// No byte arrived for this many seconds in one attempt (``DataLoader/Configuration/idleTimeout``);
    /// transient, so the attempt is retried within the overall deadline.
    case idleTimeout(seconds: Double)
    /// More redirects than allowed, or a redirect loop.
    case tooManyRedirects
    /// A redirect to a scheme that is never followed, so a server cannot make Pictor read local
    /// files (`file:`, `data:`, …) or drop TLS (`https` → `http`). Only `http` → `http`/`https`
    /// and `https` → `https` are followed. Both schemes are lower-cased, without the colon.
    case redirectNotAllowed(fromScheme: String, toScheme: String)
    /// A `data:` URL without a comma, or whose base64 payload does not decode (RFC 2397).
    case malformedDataURL
    /// The URL scheme cannot be loaded (only http, https, file and data are).
    case unsupportedURL
    /// A cache-only request found nothing in the cache.
    case notCached
    /// The URL is remembered as permanently failed (404/410) and was not requested again.
    case knownFailure(statusCode: Int)
    /// A transport error (connection refused, reset, DNS, TLS…): the `URLError` code and its text.
    case transport(code: Int, message: String)

    /// A one-line, human-readable description (used in logs and CLI messages).
    public var description: String {
        switch self {
        case .statusCode(let code): "HTTP status \(code)"
        case .emptyBody: "empty response body"
        case .notAnImage(let type, let signature):
            "body is not an image format Pictor reads: it starts with \(signature)"
                + (type.map { type in
                    // A server that claims an image is contradicted by the bytes; say so plainly.
                    (type.lowercased().hasPrefix("image/") ? ", though" : ", and") + " the server's Content-Type says \(type)"
                } ?? "; the server sent no Content-Type")
        case .localNotAnImage(let scheme, let signature):
            (scheme == "file" ? "the file" : "the \(scheme): URL") + " is not an image format Pictor reads: it starts with \(signature)"
        case .truncated(let r, let e): "body truncated: \(r) of \(e) bytes"
        case .responseTooLarge(let limit): "response larger than \(limit) bytes"
        case .timedOut(let s): "timed out: no complete response within the overall deadline of \(s) s (all attempts and retry waits included)"
        case .idleTimeout(let s): "timed out: no data received for \(s) s"
        case .tooManyRedirects: "too many redirects or a redirect loop"
        case .redirectNotAllowed(let from, let to): "redirect from \(from): to \(to): refused (only http to http(s) and https to https are followed)"
        case .malformedDataURL: "malformed data: URL"
        case .unsupportedURL: "unsupported URL scheme"
        case .notCached: "not in the cache (cache-only request)"
        case .knownFailure(let code): "previously failed with HTTP \(code)"
        case .transport(let code, let message): "transport error \(code): \(message)"
        }
    }

    /// `URLError` codes of transport failures that a retry would only repeat, the local
    /// loader's included: a file that is missing, unreadable or not a regular file stays so.
    static let permanentTransportCodes: Set<Int> = [
        URLError.cancelled, .badURL, .unsupportedURL, .badServerResponse, .cannotDecodeContentData, .cannotDecodeRawData,
        .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
        .serverCertificateHasUnknownRoot, .clientCertificateRejected, .clientCertificateRequired,
        .fileDoesNotExist, .noPermissionsToReadFile, .fileIsDirectory, .cannotOpenFile,
    ].map(\.rawValue).reduce(into: Set<Int>()) { $0.insert($1) }

    /// Whether a retry may succeed: timeouts, transport errors (but the permanent ones: a
    /// shut-down transport, a malformed URL, a response that is not valid HTTP, a body that
    /// does not decode, an untrusted certificate, a local file that is missing or unreadable),
    /// bodies cut short, 500–599, 408 and 429.
    public var isTransient: Bool {
        switch self {
        case .timedOut, .idleTimeout, .truncated: true
        // Failures that a new attempt repeats: a shut-down transport, a malformed URL, a
        // response that is not valid HTTP, a body that does not decode, a certificate that is
        // not trusted.
        case .transport(let code, _): !Self.permanentTransportCodes.contains(code)
        case .statusCode(let code): (500..<600).contains(code) || code == 429 || code == 408
        default: false
        }
    }
}
