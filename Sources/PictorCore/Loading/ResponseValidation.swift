import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What makes a response an image Pictor accepts: the one status and content validation of the
/// loading stage.
///
/// - Status: 200..<300 other than 206 (Pictor never sends `Range`, so a partial body is never an
///   image); a `304` only as the answer to a conditional request. Any other status is
///   ``DataLoadingError/statusCode(_:)`` and its body is dropped, never cached.
/// - Body: not empty, not above the size cap, and its first bytes a known image format whatever
///   the `Content-Type` says (``ImageFormat/sniff(_:)``).
///
/// A body shorter than its `Content-Length` is the transport's to detect (it counts wire bytes;
/// a content-decoded body is not comparable with an encoded length).
enum ResponseValidation {
    /// What a status means for the loader.
    enum StatusVerdict: Equatable {
        /// A body to check with ``checkBody(_:head:limit:)``.
        case content
        /// `304` to a conditional request: the cached entry is still valid.
        case notModified
        /// A redirect to this absolute target, for ``RedirectPolicy`` to decide.
        case redirect(to: URL)
        /// A failure: the status, and the server's `Retry-After` in seconds (429 and 503 only).
        case failure(status: Int, retryAfter: Double?)
    }

    /// Classifies the response with `head` to `request`.
    static func status(of head: HTTPResponseHead, for request: URLRequest) -> StatusVerdict {
        let code = head.statusCode
        if code == 304, isConditional(request) { return .notModified }
        if let target = RedirectPolicy.target(of: head, for: request) { return .redirect(to: target) }
        guard (200..<300).contains(code), code != 206 else {
            let retryAfter = (code == 429 || code == 503) ? Self.retryAfter(head.value(forHTTPHeaderField: "Retry-After")) : nil
            return .failure(status: code, retryAfter: retryAfter)
        }
        return .content
    }

    /// Checks emptiness, size and image signature of a body received with `head`.
    ///
    /// - Throws: ``DataLoadingError/emptyBody``, ``DataLoadingError/responseTooLarge(limit:)`` or
    ///   ``DataLoadingError/notAnImage(contentType:signature:)``.
    static func checkBody(_ data: Data, head: HTTPResponseHead, limit: Int64?) throws(DataLoadingError) {
        try checkBody(data, limit: limit) { head.value(forHTTPHeaderField: "Content-Type") }
    }

    /// Checks emptiness and image signature of local bytes (a `file:` or `data:` URL, named by
    /// `scheme`): like a download, but with no size cap (the pixel-count guard still applies at
    /// decode) and no server whose `Content-Type` the error could quote.
    ///
    /// - Throws: ``DataLoadingError/emptyBody`` or
    ///   ``DataLoadingError/localNotAnImage(scheme:signature:)``.
    static func checkLocalBody(_ data: Data, scheme: String) throws(DataLoadingError) {
        guard !data.isEmpty else { throw .emptyBody }
        guard ImageFormat.sniff(data) != nil else { throw .localNotAnImage(scheme: scheme, signature: ByteSignature(data)) }
    }

    /// The checks, with the `Content-Type` read only for the error.
    private static func checkBody(_ data: Data, limit: Int64?, contentType: () -> String?) throws(DataLoadingError) {
        guard !data.isEmpty else { throw .emptyBody }
        if let limit, Int64(data.count) > limit { throw .responseTooLarge(limit: limit) }
        guard ImageFormat.sniff(data) != nil else {
            throw .notAnImage(contentType: contentType(), signature: ByteSignature(data))
        }
    }

    /// Whether `request` carries validators, so a 304 is a valid answer.
    static func isConditional(_ request: URLRequest) -> Bool {
        request.value(forHTTPHeaderField: "If-None-Match") != nil || request.value(forHTTPHeaderField: "If-Modified-Since") != nil
    }

    /// `Retry-After` as seconds: delta-seconds or an HTTP-date (RFC 9110 §10.2.3).
    static func retryAfter(_ value: String?, now: Date = Date()) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(value), seconds >= 0 { return seconds }
        guard let date = HTTPDate.parse(value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
