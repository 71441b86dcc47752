import Foundation

/// Why an encode failed.
///
/// A struct rather than an enum, so that a new kind of failure is not a breaking change: match
/// with `==` against a static member (`error == .unsupportedFormat(.avif)`), or switch over
/// ``kind`` with a `default:` branch, and read the details from ``format`` and ``message``.
public struct ImageEncodingError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The kind of an encoding failure, without its details: the value to `switch` over (with a
    /// `default:` branch, since kinds may be added).
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kind's name, e.g. `"failed"`.
        public let description: String
        private init(_ description: String) { self.description = description }

        /// ``ImageEncodingError/unsupportedFormat(_:)``.
        public static let unsupportedFormat = Kind("unsupportedFormat")
        /// ``ImageEncodingError/failed(_:message:)``.
        public static let failed = Kind("failed")
    }

    /// The failure and its details; private so that a new kind is not a breaking change.
    private enum Code: Sendable, Equatable {
        case unsupportedFormat(ImageFormat)
        case failed(ImageFormat, message: String)
    }

    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// The encoder cannot write this format.
    public static func unsupportedFormat(_ format: ImageFormat) -> ImageEncodingError { .init(.unsupportedFormat(format)) }
    /// The encoding library failed; `message` is its text.
    public static func failed(_ format: ImageFormat, message: String) -> ImageEncodingError {
        .init(.failed(format, message: message))
    }

    /// The kind of failure, without its details.
    public var kind: Kind {
        switch code {
        case .unsupportedFormat: .unsupportedFormat
        case .failed: .failed
        }
    }

    /// The target format (every kind has one).
    public var format: ImageFormat {
        switch code {
        case .unsupportedFormat(let f), .failed(let f, _): f
        }
    }

    /// The encoding library's text, for ``Kind/failed``; `nil` otherwise.
    public var message: String? {
        if case .failed(_, let message) = code { return message }
        return nil
    }

    /// A one-line, human-readable description (used in logs and CLI messages).
    public var description: String {
        switch code {
        case .unsupportedFormat(let f): "cannot encode \(f.rawValue)"
        case .failed(let f, let m): "encoding \(f.rawValue) failed: \(m)"
        }
    }

    /// The same text as ``description``, so that `localizedDescription` logs it.
    public var errorDescription: String? { description }

    /// Whether `value` is this error: lets `catch ImageEncodingError.unsupportedFormat(.avif)` match an error thrown as
    /// `any Error`, as it did when the type was an enum.
    public static func ~= (pattern: ImageEncodingError, value: any Swift.Error) -> Bool { (value as? ImageEncodingError) == pattern }
}
