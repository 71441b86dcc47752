import Foundation

/// Why a request was refused: a kind to match on, the HTTP status to answer with, and a
/// one-line reason that is safe to send in a response body or header. The path grammar refuses
/// with the first kinds; ``ImageService`` with the rest (method, source, fetch, decode, limits).
///
/// The reason is printable ASCII on one line. Text taken from the request (an option name, an
/// argument, a preset name, an extension) appears in it only through ``SafeText``: quoted,
/// percent-escaped outside `[A-Za-z0-9._~+,=-]` and cut to a few dozen characters, so a
/// response never echoes the URL unescaped. The source URL itself never appears.
///
/// | kind | status |
/// | --- | --- |
/// | ``Kind/notAnImageURL`` | 404 |
/// | ``Kind/pathTooLong`` | 414 |
/// | ``Kind/unknownOption``, ``Kind/invalidArgument``, ``Kind/tooManyOptions``, ``Kind/unknownPreset``, ``Kind/unsupportedURLFormat``, ``Kind/invalidSource``, ``Kind/invalidFormat`` | 400 |
/// | ``Kind/invalidSignature``, ``Kind/missingSignature`` | 403 |
/// | ``Kind/methodNotAllowed`` | 405 |
/// | ``Kind/unsupportedOption``, ``Kind/unsupportedOutputFormat`` | 400 |
/// | ``Kind/sourceSchemeNotAllowed``, ``Kind/sourceNotAllowed``, ``Kind/privateNetworkSource``, ``Kind/redirectNotAllowed`` | 403 |
/// | ``Kind/sourceNotFound`` | 404 |
/// | ``Kind/sourceFailed``, ``Kind/sourceUnreachable`` | 502 |
/// | ``Kind/sourceTimedOut``, ``Kind/deadlineExceeded`` | 504 |
/// | ``Kind/notAnImage``, ``Kind/sourceTooLarge``, ``Kind/resultTooLarge``, ``Kind/processingFailed`` | 422 |
/// | ``Kind/overloaded`` | 429 |
/// | ``Kind/cancelled``, ``Kind/unavailable`` | 503 |
public struct ServiceError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// What was wrong with the request; match on it rather than on ``reason``.
    public enum Kind: Sendable, Hashable, CaseIterable {
        /// The path does not have the shape `/{signature}/{options…}/{source}` at all (empty,
        /// `/`, or a signature with nothing after it): 404, as for any path that names nothing.
        case notAnImageURL
        /// The path is longer than ``ServiceLimits/maxPathLength``: 414 (URI Too Long).
        case pathTooLong
        /// An option name this service does not know (imgproxy options outside the supported
        /// set included): 400, naming it.
        case unknownOption
        /// An option's arguments are malformed, out of range, or too many: 400, naming the
        /// option (by the name the request used) and the argument.
        case invalidArgument
        /// More options than ``ServiceLimits/maxOptions`` in the path, or presets that expand
        /// to more than ``ServiceLimits/maxAppliedOptions``: 400.
        case tooManyOptions
        /// A `preset`/`pr` name (or, in presets-only mode, a path preset) that is not defined:
        /// 400, naming it.
        case unknownPreset
        /// imgproxy's old "basic" URL format (`/{signature}/fit/300/300/…`), which imgproxy
        /// itself no longer reads: 400.
        case unsupportedURLFormat
        /// The source part is empty, badly percent-encoded, bad base64, not UTF-8, or has more
        /// than one extension: 400.
        case invalidSource
        /// The extension (or `format`/`f`/`ext` argument) names no known image format: 400.
        case invalidFormat
        /// Signing is on and the signature matches none of the key/salt pairs (or is not
        /// base64url): 403.
        case invalidSignature
        /// The first segment looks like a processing option (`rs:fit:…`): the signature
        /// segment was left out. Refused even with signing off, as imgproxy does: 403.
        case missingSignature
        /// A method other than `GET` and `HEAD`: 405, with `Allow: GET, HEAD`.
        case methodNotAllowed
        /// An option the grammar accepts but the service does not carry out yet (see
        /// ``ImageService``): 400 naming it, rather than an image that ignores it.
        case unsupportedOption
        /// An output format (`f:`, the extension) the service does not encode: 400 naming it.
        case unsupportedOutputFormat
        /// The source's scheme is not `http` or `https` (`file:`, `data:` and every other one
        /// are never fetched for a request), or the URL does not parse, has no host, or
        /// carries credentials: 403.
        case sourceSchemeNotAllowed
        /// The source matches none of ``ImageService/Configuration/allowedSourcePrefixes``: 403.
        case sourceNotAllowed
        /// The source's host is a literal loopback, private, link-local, multicast, unspecified,
        /// CGNAT or reserved address, or `localhost`, or (when the transport checks the
        /// addresses it connects to) a name that resolves to one, and private networks are not
        /// allowed: 403.
        case privateNetworkSource
        /// The source redirected to a URL the source rules refuse (another scheme than `http`
        /// and `https`, or `https` to `http`; off the allowed prefixes; a literal private
        /// address), which was not requested: 403.
        case redirectNotAllowed
        /// The origin answered 404 or 410: 404.
        case sourceNotFound
        /// The origin answered another error status, an empty body, a truncated body, bad
        /// HTTP or too many redirects: 502.
        case sourceFailed
        /// The origin could not be reached (refused connection, DNS, TLS): 502.
        case sourceUnreachable
        /// The origin did not answer in time (the loader's timeouts): 504.
        case sourceTimedOut
        /// The whole request took longer than ``ImageService/Configuration/requestTimeout``: 504.
        case deadlineExceeded
        /// The source is not an image the service reads (not an image format, an unsupported
        /// format or variant, corrupt or truncated data): 422. The request was well-formed; the
        /// bytes it names cannot be processed (imgproxy answers 422 here too).
        case notAnImage
        /// The source has more bytes or pixels than the limits allow: 422 (the request is
        /// well-formed, its source is not processable; 413 is about the request's own body).
        case sourceTooLarge
        /// The result would be wider or taller than the result limit: 422.
        case resultTooLarge
        /// Processing or encoding the image failed: 422.
        case processingFailed
        /// More work in flight than the service allows: 429, with `Retry-After`.
        case overloaded
        /// The caller went away before the answer was ready: 503 (rarely sent; nobody reads it).
        case cancelled
        /// The service cannot do this request as configured (no renderer for a resize): 503.
        case unavailable

        /// The HTTP status code answered for this kind.
        public var status: Int {
            switch self {
            case .notAnImageURL, .sourceNotFound: 404
            case .pathTooLong: 414
            case .unknownOption, .invalidArgument, .tooManyOptions, .unknownPreset,
                 .unsupportedURLFormat, .invalidSource, .invalidFormat, .unsupportedOption, .unsupportedOutputFormat: 400
            case .invalidSignature, .missingSignature, .sourceSchemeNotAllowed, .sourceNotAllowed, .privateNetworkSource,
                 .redirectNotAllowed: 403
            case .methodNotAllowed: 405
            case .sourceFailed, .sourceUnreachable: 502
            case .sourceTimedOut, .deadlineExceeded: 504
            case .notAnImage, .sourceTooLarge, .resultTooLarge, .processingFailed: 422
            case .overloaded: 429
            case .cancelled, .unavailable: 503
            }
        }
    }

    /// What was wrong.
    public let kind: Kind
    /// One line of printable ASCII for the response, e.g. `invalid argument '-5' for option
    /// 'w' (expected an integer 0...16384)`. Request text in it is escaped with ``SafeText``.
    public let reason: String

    /// The HTTP status code to answer with (``Kind/status``).
    public var status: Int { kind.status }

    /// Creates an error; `reason` must already be safe (built with ``SafeText/quote(_:)``).
    public init(_ kind: Kind, reason: String) {
        self.kind = kind
        self.reason = reason
    }

    /// `"<status> <reason>"`, e.g. `"403 invalid signature"`.
    public var description: String { "\(status) \(reason)" }

    /// The ``description``, so that `localizedDescription` logs the message.
    public var errorDescription: String? { description }
}

extension ServiceError {
    static func invalidArgument(_ option: Substring, _ argument: Substring, expected: String) -> ServiceError {
        ServiceError(.invalidArgument, reason: "invalid argument \(SafeText.quote(argument)) for option \(SafeText.quote(option)) (expected \(expected))")
    }

    static func tooManyArguments(_ option: Substring, max: Int) -> ServiceError {
        ServiceError(.invalidArgument, reason: "too many arguments for option \(SafeText.quote(option)) (at most \(max))")
    }
}
