import Foundation

/// Why loading the bytes of a request failed.
///
/// A struct rather than an enum, so that a new kind of failure is not a breaking change: match
/// an error with `==` against a static member (`error == .statusCode(404)`,
/// `error == .emptyBody`), or switch over its ``kind`` with a `default:` branch, and read what
/// the failure carries from the optional properties (`statusCode`, ``transportCode``, …).
///
/// Two errors are equal when they have the same kind and the same details; ``attempts`` and
/// ``elapsed`` (what happened, not what failed) are not compared.
public struct DataLoadingError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The kind of a failure, without its details: the value to `switch` over (with a
    /// `default:` branch, since kinds may be added).
    ///
    /// Transport failures are told apart by what went wrong (``connectionRefused``,
    /// ``hostNotFound``, ``certificateUntrusted``, …); a transport code Pictor has no name for
    /// is ``transport``. ``description`` is the kind in words, e.g. `"connection refused"`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kind in words (the start of the error's message for transport kinds).
        public let description: String

        private init(_ description: String) { self.description = description }

        /// The server answered with a status outside 200..<300: ``DataLoadingError/statusCode(_:)``.
        public static let statusCode = Kind("HTTP status")
        /// The response body was empty: ``DataLoadingError/emptyBody``.
        public static let emptyBody = Kind("empty response body")
        /// The body is not an image format: ``DataLoadingError/notAnImage(contentType:signature:)``.
        public static let notAnImage = Kind("not an image")
        /// Local bytes are not an image format: ``DataLoadingError/localNotAnImage(scheme:signature:)``.
        public static let localNotAnImage = Kind("local bytes not an image")
        /// The body ended before its `Content-Length`: ``DataLoadingError/truncated(received:expected:)``.
        public static let truncated = Kind("body truncated")
        /// The body is over the size limit: ``DataLoadingError/responseTooLarge(limit:)``.
        public static let responseTooLarge = Kind("response too large")
        /// Pictor's overall deadline elapsed: ``DataLoadingError/timedOut(seconds:)``.
        public static let timedOut = Kind("timed out")
        /// No byte arrived for too long in one attempt: ``DataLoadingError/idleTimeout(seconds:)``.
        public static let idleTimeout = Kind("idle timeout")
        /// More redirects than allowed, or a loop: ``DataLoadingError/tooManyRedirects``.
        public static let tooManyRedirects = Kind("too many redirects")
        /// A redirect to a scheme never followed: ``DataLoadingError/redirectNotAllowed(fromScheme:toScheme:)``.
        public static let redirectNotAllowed = Kind("redirect not allowed")
        /// A redirect whose target the loader's redirect filter refused:
        /// ``DataLoadingError/redirectRefused``.
        public static let redirectRefused = Kind("redirect refused")
        /// ``DataLoadingError/malformedDataURL``.
        public static let malformedDataURL = Kind("malformed data: URL")
        /// ``DataLoadingError/unsupportedURL``.
        public static let unsupportedURL = Kind("unsupported URL scheme")
        /// A cache-only request found nothing: ``DataLoadingError/notCached``.
        public static let notCached = Kind("not cached")
        /// A remembered permanent failure: ``DataLoadingError/knownFailure(statusCode:)``.
        public static let knownFailure = Kind("known failure")

        // Transport kinds: each is a ``DataLoadingError/transport(_:code:message:curlCode:)``.

        /// The host answered the connection attempt with a refusal (nothing listens on the
        /// port). Retried.
        public static let connectionRefused = Kind("connection refused")
        /// No connection could be made for another reason (network or host unreachable).
        /// Retried.
        public static let cannotConnect = Kind("cannot connect to host")
        /// The host name did not resolve (DNS). Retried.
        public static let hostNotFound = Kind("host not found")
        /// The transport refused to connect to the address the host resolved to, by its
        /// connect-address policy (``ConnectAddressPolicy``: a loopback, private, link-local, …
        /// address), before any packet was sent to it. The message names the address and its
        /// class, e.g. `refused to connect to 169.254.169.254 (link-local) by the connect-address
        /// policy`. Not retried: the name resolves to the same kind of address again.
        public static let addressNotAllowed = Kind("address not allowed")
        /// The transport's own timeout passed (libcurl's connect timeout). Retried.
        public static let connectionTimedOut = Kind("connection timed out")
        /// The connection broke, or closed before a response. Retried.
        public static let connectionLost = Kind("connection lost")
        /// The server's certificate is not trusted (unknown issuer, self-signed, wrong name,
        /// expired, pinned key mismatch). Not retried. With `CurlTransport`, the message names
        /// the certificate after libcurl's reason: `…; certificate subject: CN=cdn.internal;
        /// issuer: CN=Example Internal CA` (RFC 2253 names; the certificate that failed the
        /// checks, or the server's own when only the host name did not match).
        public static let certificateUntrusted = Kind("server certificate untrusted")
        /// The TLS handshake failed for another reason than trust (protocol or cipher mismatch,
        /// the peer closed it). Retried.
        public static let tlsHandshakeFailed = Kind("TLS handshake failed")
        /// The client certificate could not be used (unreadable, encrypted, not matching its
        /// key), or the server refused it, or required one, with a TLS alert. Not retried.
        public static let clientCertificateRejected = Kind("client certificate rejected")
        /// The reply is not valid HTTP (HTTP/0.9, conflicting lengths, an oversized head).
        /// Not retried.
        public static let badServerResponse = Kind("bad server response")
        /// The body's `Content-Encoding` does not decode. Not retried.
        public static let contentDecodingFailed = Kind("content decoding failed")
        /// The transport refused the URL as malformed. Not retried.
        public static let badURL = Kind("malformed URL")
        /// The transport was shut down, or cancelled the transfer. Not retried.
        public static let transferCancelled = Kind("transfer cancelled")
        /// A `file:` URL names no file. Not retried.
        public static let fileNotFound = Kind("file does not exist")
        /// A `file:` URL names a file that cannot be opened for reading. Not retried.
        public static let fileNotReadable = Kind("file cannot be read")
        /// A `file:` URL names a directory, FIFO or device, not a regular file. Not retried.
        public static let notARegularFile = Kind("not a regular file")
        /// Reading a `file:` URL failed after it was opened. Not retried.
        public static let fileReadFailed = Kind("file read failed")
        /// Any other transport failure (its code is not one Pictor names). Retried.
        public static let transport = Kind("transport error")

        /// Whether this is one of the transport kinds (those with a ``DataLoadingError/transportCode``).
        public var isTransport: Bool { Self.transportKinds.contains(self) }

        static let transportKinds: Set<Kind> = [
            .connectionRefused, .cannotConnect, .hostNotFound, .addressNotAllowed, .connectionTimedOut, .connectionLost,
            .certificateUntrusted, .tlsHandshakeFailed, .clientCertificateRejected, .badServerResponse,
            .contentDecodingFailed, .badURL, .transferCancelled, .fileNotFound, .fileNotReadable,
            .notARegularFile, .fileReadFailed, .transport,
        ]

        /// The transport kind of a `URLError` code, or ``transport`` for a code without a name.
        /// `cannotConnectToHost` is ``cannotConnect``: the code alone does not say the host
        /// refused (libcurl's mapping looks at the socket error for that).
        public static func transport(urlErrorCode code: Int) -> Kind {
            switch URLError.Code(rawValue: code) {
            case .cannotConnectToHost: .cannotConnect
            case .cannotFindHost, .dnsLookupFailed: .hostNotFound
            case .timedOut: .connectionTimedOut
            case .networkConnectionLost: .connectionLost
            case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
                 .serverCertificateHasUnknownRoot:
                .certificateUntrusted
            case .secureConnectionFailed: .tlsHandshakeFailed
            case .clientCertificateRejected, .clientCertificateRequired: .clientCertificateRejected
            case .badServerResponse: .badServerResponse
            case .cannotDecodeContentData, .cannotDecodeRawData: .contentDecodingFailed
            case .badURL: .badURL
            case .cancelled: .transferCancelled
            case .fileDoesNotExist: .fileNotFound
            case .noPermissionsToReadFile: .fileNotReadable
            case .fileIsDirectory: .notARegularFile
            case .cannotOpenFile: .fileReadFailed
            default: .transport
            }
        }
    }

    /// The failure and its details; private so that a new kind is not a breaking change.
    private enum Code: Sendable, Equatable {
        case statusCode(Int)
        case emptyBody
        case notAnImage(contentType: String?, signature: ByteSignature)
        case localNotAnImage(scheme: String, signature: ByteSignature)
        case truncated(received: Int64, expected: Int64)
        case responseTooLarge(limit: Int64)
        case timedOut(seconds: Double)
        case idleTimeout(seconds: Double)
        case tooManyRedirects
        case redirectNotAllowed(fromScheme: String, toScheme: String)
        case redirectRefused
        case malformedDataURL
        case unsupportedURL
        case notCached
        case knownFailure(statusCode: Int)
        case transport(Kind, code: Int, message: String, curlCode: Int?)
    }

    private let code: Code

    /// How many attempts the loader made before giving up (retries included), when the error
    /// comes out of ``DataLoader``'s retry loop; `nil` otherwise (a transport's own error, a
    /// local file, a check before any request). Not compared by `==`.
    public private(set) var attempts: Int?
    /// The time from the first attempt's start to the failure, retry waits included, when
    /// ``attempts`` is known; `nil` otherwise. Not compared by `==`.
    public private(set) var elapsed: Duration?

    private init(_ code: Code) { self.code = code }

    // MARK: Members (one per kind; the spelling of the former enum cases)

    /// The server answered with a status outside 200..<300 (the body is discarded, never cached).
    public static func statusCode(_ code: Int) -> DataLoadingError { .init(.statusCode(code)) }
    /// The response body was empty.
    public static let emptyBody = DataLoadingError(.emptyBody)
    /// The body's first bytes are not a known image format (for example an HTML page): what
    /// they look like, and the `Content-Type` the server sent, if any (for the message only:
    /// the format always comes from the bytes).
    public static func notAnImage(contentType: String?, signature: ByteSignature) -> DataLoadingError {
        .init(.notAnImage(contentType: contentType, signature: signature))
    }
    /// Local bytes (a `file:` or `data:` URL; `scheme` is the lower-cased scheme without the
    /// colon) are not a known image format: what they look like. There is no server here, so
    /// no `Content-Type` is quoted.
    public static func localNotAnImage(scheme: String, signature: ByteSignature) -> DataLoadingError {
        .init(.localNotAnImage(scheme: scheme, signature: signature))
    }
    /// The body ended before its `Content-Length`: `received` of `expected` bytes.
    public static func truncated(received: Int64, expected: Int64) -> DataLoadingError {
        .init(.truncated(received: received, expected: expected))
    }
    /// The body is larger than the configured limit, in bytes.
    public static func responseTooLarge(limit: Int64) -> DataLoadingError { .init(.responseTooLarge(limit: limit)) }
    /// Pictor's own overall deadline elapsed, in seconds: ``DataLoader/Configuration/timeout``
    /// bounds the whole request (connect, headers, body, every retry and backoff wait).
    public static func timedOut(seconds: Double) -> DataLoadingError { .init(.timedOut(seconds: seconds)) }
    /// No byte arrived for this many seconds in one attempt (``DataLoader/Configuration/idleTimeout``);
    /// transient, so the attempt is retried within the overall deadline.
    public static func idleTimeout(seconds: Double) -> DataLoadingError { .init(.idleTimeout(seconds: seconds)) }
    /// More redirects than allowed, or a redirect loop.
    public static let tooManyRedirects = DataLoadingError(.tooManyRedirects)
    /// A redirect to a scheme that is never followed, so a server cannot make Pictor read local
    /// files (`file:`, `data:`, …) or drop TLS (`https` → `http`). Only `http` → `http`/`https`
    /// and `https` → `https` are followed. Both schemes are lower-cased, without the colon.
    public static func redirectNotAllowed(fromScheme: String, toScheme: String) -> DataLoadingError {
        .init(.redirectNotAllowed(fromScheme: fromScheme, toScheme: toScheme))
    }
    /// A redirect whose target ``DataLoader/Configuration/redirectFilter`` refused; the target
    /// was not requested. Not retried.
    public static let redirectRefused = DataLoadingError(.redirectRefused)
    /// A `data:` URL without a comma, or whose base64 payload does not decode (RFC 2397).
    public static let malformedDataURL = DataLoadingError(.malformedDataURL)
    /// The URL scheme cannot be loaded (only http, https, file and data are).
    public static let unsupportedURL = DataLoadingError(.unsupportedURL)
    /// A cache-only request found nothing in the cache.
    public static let notCached = DataLoadingError(.notCached)
    /// The URL is remembered as permanently failed (404/410) and was not requested again.
    public static func knownFailure(statusCode: Int) -> DataLoadingError { .init(.knownFailure(statusCode: statusCode)) }

    /// A transport failure of a named `kind` (one whose ``Kind/isTransport`` is true; any other
    /// kind is taken as ``Kind/transport``).
    ///
    /// - Parameters:
    ///   - kind: what went wrong, e.g. ``Kind/connectionRefused``.
    ///   - code: the `URLError` code with the same meaning (what callers that handle
    ///     URLSession's errors match on).
    ///   - message: the transport's own text for the failure, e.g. libcurl's
    ///     `"Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server"`.
    ///   - curlCode: libcurl's `CURLcode`, when libcurl reported the failure; `nil` by default.
    public static func transport(_ kind: Kind, code: Int, message: String, curlCode: Int? = nil) -> DataLoadingError {
        .init(.transport(kind.isTransport ? kind : .transport, code: code, message: message, curlCode: curlCode))
    }

    /// A transport failure (connection refused, reset, DNS, TLS…) given by its `URLError` code
    /// and text; its kind is ``Kind/transport(urlErrorCode:)`` of the code.
    public static func transport(code: Int, message: String) -> DataLoadingError {
        transport(Kind.transport(urlErrorCode: code), code: code, message: message)
    }

    // MARK: What the failure carries

    /// The kind of failure, without its details.
    public var kind: Kind {
        switch code {
        case .statusCode: .statusCode
        case .emptyBody: .emptyBody
        case .notAnImage: .notAnImage
        case .localNotAnImage: .localNotAnImage
        case .truncated: .truncated
        case .responseTooLarge: .responseTooLarge
        case .timedOut: .timedOut
        case .idleTimeout: .idleTimeout
        case .tooManyRedirects: .tooManyRedirects
        case .redirectNotAllowed: .redirectNotAllowed
        case .redirectRefused: .redirectRefused
        case .malformedDataURL: .malformedDataURL
        case .unsupportedURL: .unsupportedURL
        case .notCached: .notCached
        case .knownFailure: .knownFailure
        case .transport(let kind, _, _, _): kind
        }
    }

    /// The HTTP status of ``Kind/statusCode`` (the server's answer) and of
    /// ``Kind/knownFailure`` (the remembered answer); `nil` for other kinds.
    public var statusCode: Int? {
        switch code {
        case .statusCode(let status), .knownFailure(let status): status
        default: nil
        }
    }

    /// The server's `Content-Type` of ``Kind/notAnImage``, if it sent one; `nil` for other kinds.
    public var contentType: String? {
        if case .notAnImage(let type, _) = code { return type }
        return nil
    }

    /// What the first bytes look like, for ``Kind/notAnImage`` and ``Kind/localNotAnImage``;
    /// `nil` for other kinds.
    public var signature: ByteSignature? {
        switch code {
        case .notAnImage(_, let signature), .localNotAnImage(_, let signature): signature
        default: nil
        }
    }

    /// The lower-cased URL scheme (`"file"`, `"data"`) of ``Kind/localNotAnImage``; `nil` for
    /// other kinds.
    public var scheme: String? {
        if case .localNotAnImage(let scheme, _) = code { return scheme }
        return nil
    }

    /// Body bytes received before the connection ended, for ``Kind/truncated``; `nil` for other kinds.
    public var received: Int64? {
        if case .truncated(let received, _) = code { return received }
        return nil
    }

    /// The declared `Content-Length`, in bytes, for ``Kind/truncated``; `nil` for other kinds.
    public var expected: Int64? {
        if case .truncated(_, let expected) = code { return expected }
        return nil
    }

    /// The configured size limit, in bytes, for ``Kind/responseTooLarge``; `nil` for other kinds.
    public var limit: Int64? {
        if case .responseTooLarge(let limit) = code { return limit }
        return nil
    }

    /// The timeout that passed, in seconds, for ``Kind/timedOut`` (the overall deadline) and
    /// ``Kind/idleTimeout``; `nil` for other kinds.
    public var seconds: Double? {
        switch code {
        case .timedOut(let seconds), .idleTimeout(let seconds): seconds
        default: nil
        }
    }

    /// The scheme redirected from, for ``Kind/redirectNotAllowed``; `nil` for other kinds.
    public var fromScheme: String? {
        if case .redirectNotAllowed(let from, _) = code { return from }
        return nil
    }

    /// The scheme redirected to, for ``Kind/redirectNotAllowed``; `nil` for other kinds.
    public var toScheme: String? {
        if case .redirectNotAllowed(_, let to) = code { return to }
        return nil
    }

    /// The `URLError` code of a transport failure (any kind whose ``Kind/isTransport`` is
    /// true); `nil` for other kinds.
    public var transportCode: Int? {
        if case .transport(_, let code, _, _) = code { return code }
        return nil
    }

    /// The transport's own text for a transport failure (libcurl's error buffer, or its text
    /// for the code, followed for ``Kind/certificateUntrusted`` by the certificate's subject and
    /// issuer when `CurlTransport` saw them); `nil` for other kinds.
    public var transportMessage: String? {
        if case .transport(_, _, let message, _) = code { return message }
        return nil
    }

    /// libcurl's `CURLcode` of a transport failure that libcurl reported (for example `7`,
    /// `CURLE_COULDNT_CONNECT`); `nil` for other failures and other transports.
    public var curlCode: Int? {
        if case .transport(_, _, _, let curlCode) = code { return curlCode }
        return nil
    }

    // MARK: Messages

    /// A one-line, human-readable description (used in logs and CLI messages).
    ///
    /// A transport failure names its kind, then what happened when known (attempts and total
    /// time), then the transport's detail for the last attempt, e.g. `"connection refused
    /// after 3 attempts in 940 ms (last attempt: libcurl error 7: Failed to connect to
    /// 127.0.0.1 port 1 after 0 ms: Couldn't connect to server)"`.
    public var description: String {
        switch code {
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
        case .redirectRefused: "redirect refused: the loader's redirect filter does not allow its target"
        case .malformedDataURL: "malformed data: URL"
        case .unsupportedURL: "unsupported URL scheme"
        case .notCached: "not in the cache (cache-only request)"
        case .knownFailure(let code): "previously failed with HTTP \(code)"
        case .transport(let kind, let code, let message, let curlCode):
            Self.transportDescription(kind, code: code, message: message, curlCode: curlCode, attempts: attempts, elapsed: elapsed)
        }
    }

    /// The same text as ``description``, so that `localizedDescription` logs it.
    public var errorDescription: String? { description }

    /// Whether `value` is this error: lets `catch DataLoadingError.emptyBody` match an error thrown as
    /// `any Error`, as it did when the type was an enum.
    public static func ~= (pattern: DataLoadingError, value: any Swift.Error) -> Bool { (value as? DataLoadingError) == pattern }

    private static func transportDescription(
        _ kind: Kind, code: Int, message: String, curlCode: Int?, attempts: Int?, elapsed: Duration?
    ) -> String {
        var text = kind.description
        if let attempts {
            text += " after \(attempts) attempt\(attempts == 1 ? "" : "s")"
            if let elapsed { text += " in \(Self.formatted(elapsed))" }
        }
        // The transport's text describes the last attempt only (libcurl's "after 0 ms" is that
        // attempt's connect time), so it is labelled as such once there were several.
        var detail = curlCode.map { "libcurl error \($0)" } ?? "URLError \(code)"
        if !message.isEmpty, message != kind.description { detail += ": \(message)" }
        text += " (" + ((attempts ?? 1) > 1 ? "last attempt: " : "") + detail + ")"
        return text
    }

    /// Milliseconds below 10 s, else seconds with one decimal.
    private static func formatted(_ duration: Duration) -> String {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        if milliseconds < 10_000 { return "\(Int(milliseconds.rounded())) ms" }
        return String(format: "%.1f s", milliseconds / 1000)
    }

    // MARK: Retrying

    /// The error with what the loader's retry loop saw: `attempts` made in `elapsed`.
    func after(attempts: Int, elapsed: Duration) -> DataLoadingError {
        var copy = self
        copy.attempts = attempts
        copy.elapsed = elapsed
        return copy
    }

    /// `URLError` codes of transport failures that a retry would only repeat: a shut-down
    /// transport, a malformed URL, a response that is not valid HTTP, a body that does not
    /// decode, a certificate that is not trusted, and a local file that is missing, unreadable
    /// or not a regular file.
    static let permanentTransportCodes: Set<Int> = [
        URLError.cancelled, .badURL, .unsupportedURL, .badServerResponse, .cannotDecodeContentData, .cannotDecodeRawData,
        .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
        .serverCertificateHasUnknownRoot, .clientCertificateRejected, .clientCertificateRequired,
        .fileDoesNotExist, .noPermissionsToReadFile, .fileIsDirectory, .cannotOpenFile,
    ].map(\.rawValue).reduce(into: Set<Int>()) { $0.insert($1) }

    /// Transport kinds that a retry would only repeat whatever their `URLError` code: an
    /// address the connect-address policy refuses is refused again.
    static let permanentTransportKinds: Set<Kind> = [.addressNotAllowed]

    /// Whether a retry may succeed: timeouts, transport errors (but the permanent ones: a
    /// shut-down transport, a malformed URL, a response that is not valid HTTP, a body that
    /// does not decode, an untrusted certificate, an address the connect-address policy
    /// refuses, a local file that is missing or unreadable), bodies cut short, 500–599, 408 and
    /// 429.
    public var isTransient: Bool {
        switch code {
        case .timedOut, .idleTimeout, .truncated: true
        case .transport(let kind, let code, _, _):
            !Self.permanentTransportKinds.contains(kind) && !Self.permanentTransportCodes.contains(code)
        case .statusCode(let code): (500..<600).contains(code) || code == 429 || code == 408
        default: false
        }
    }

    /// Equal kinds and details; ``attempts`` and ``elapsed`` are not compared.
    public static func == (lhs: DataLoadingError, rhs: DataLoadingError) -> Bool {
        lhs.code == rhs.code
    }
}
