/// Why a request path was refused: a kind to match on, the HTTP status to answer with, and a
/// one-line reason that is safe to send in a response body or header.
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
public struct ServiceError: Error, Sendable, Hashable, CustomStringConvertible {
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

        /// The HTTP status code answered for this kind.
        public var status: Int {
            switch self {
            case .notAnImageURL: 404
            case .pathTooLong: 414
            case .unknownOption, .invalidArgument, .tooManyOptions, .unknownPreset,
                 .unsupportedURLFormat, .invalidSource, .invalidFormat: 400
            case .invalidSignature, .missingSignature: 403
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
}

extension ServiceError {
    static func invalidArgument(_ option: Substring, _ argument: Substring, expected: String) -> ServiceError {
        ServiceError(.invalidArgument, reason: "invalid argument \(SafeText.quote(argument)) for option \(SafeText.quote(option)) (expected \(expected))")
    }

    static func tooManyArguments(_ option: Substring, max: Int) -> ServiceError {
        ServiceError(.invalidArgument, reason: "too many arguments for option \(SafeText.quote(option)) (at most \(max))")
    }
}
