import Foundation

/// Why a decode failed.
///
/// A struct rather than an enum, so that a new kind of failure is not a breaking change: match
/// with `==` against a static member (`error == .truncated(.png)`, `error == .emptyData`), or
/// switch over ``kind`` with a `default:` branch, and read the details from the optional
/// properties (``format``, ``message``, …).
public struct ImageDecodingError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The kind of a decoding failure, without its details: the value to `switch` over (with a
    /// `default:` branch, since kinds may be added).
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kind's name, e.g. `"truncated"`.
        public let description: String
        private init(_ description: String) { self.description = description }

        /// ``ImageDecodingError/emptyData``.
        public static let emptyData = Kind("emptyData")
        /// ``ImageDecodingError/unknownFormat``.
        public static let unknownFormat = Kind("unknownFormat")
        /// ``ImageDecodingError/unsupportedFormat(_:)``.
        public static let unsupportedFormat = Kind("unsupportedFormat")
        /// ``ImageDecodingError/unsupportedVariant(_:detail:)``.
        public static let unsupportedVariant = Kind("unsupportedVariant")
        /// ``ImageDecodingError/invalidOptions(detail:)``.
        public static let invalidOptions = Kind("invalidOptions")
        /// ``ImageDecodingError/tooManyPixels(width:height:limit:)``.
        public static let tooManyPixels = Kind("tooManyPixels")
        /// ``ImageDecodingError/truncated(_:)``.
        public static let truncated = Kind("truncated")
        /// ``ImageDecodingError/corrupt(_:message:)``.
        public static let corrupt = Kind("corrupt")
    }

    /// The failure and its details; private so that a new kind is not a breaking change.
    private enum Code: Sendable, Equatable {
        case emptyData
        case unknownFormat
        case unsupportedFormat(ImageFormat)
        case unsupportedVariant(ImageFormat, detail: String)
        case invalidOptions(detail: String)
        case tooManyPixels(width: Int, height: Int, limit: Int)
        case truncated(ImageFormat)
        case corrupt(ImageFormat?, message: String)
    }

    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// The data was empty.
    public static let emptyData = ImageDecodingError(.emptyData)
    /// The bytes are not any image format Pictor knows.
    public static let unknownFormat = ImageDecodingError(.unknownFormat)
    /// The format is known but no registered decoder handles it.
    public static func unsupportedFormat(_ format: ImageFormat) -> ImageDecodingError { .init(.unsupportedFormat(format)) }
    /// The format is supported but this file uses a variant of it that is not (for example a
    /// 12-bit JPEG); `detail` names the variant.
    public static func unsupportedVariant(_ format: ImageFormat, detail: String) -> ImageDecodingError {
        .init(.unsupportedVariant(format, detail: detail))
    }
    /// The decoding options are invalid (for example a thumbnail of zero width); `detail` says which.
    public static func invalidOptions(detail: String) -> ImageDecodingError { .init(.invalidOptions(detail: detail)) }
    /// The header declares more pixels than allowed (a decompression bomb); nothing was decoded.
    public static func tooManyPixels(width: Int, height: Int, limit: Int) -> ImageDecodingError {
        .init(.tooManyPixels(width: width, height: height, limit: limit))
    }
    /// The data ends before the image does.
    public static func truncated(_ format: ImageFormat) -> ImageDecodingError { .init(.truncated(format)) }
    /// The data is corrupt (`format` when it is known); `message` is the decoder library's own text.
    public static func corrupt(_ format: ImageFormat?, message: String) -> ImageDecodingError {
        .init(.corrupt(format, message: message))
    }

    /// The kind of failure, without its details.
    public var kind: Kind {
        switch code {
        case .emptyData: .emptyData
        case .unknownFormat: .unknownFormat
        case .unsupportedFormat: .unsupportedFormat
        case .unsupportedVariant: .unsupportedVariant
        case .invalidOptions: .invalidOptions
        case .tooManyPixels: .tooManyPixels
        case .truncated: .truncated
        case .corrupt: .corrupt
        }
    }

    /// The image format, for ``Kind/unsupportedFormat``, ``Kind/unsupportedVariant``,
    /// ``Kind/truncated`` and ``Kind/corrupt`` (when known); `nil` otherwise.
    public var format: ImageFormat? {
        switch code {
        case .unsupportedFormat(let f), .unsupportedVariant(let f, _), .truncated(let f): f
        case .corrupt(let f, _): f
        default: nil
        }
    }

    /// What is unsupported or invalid, for ``Kind/unsupportedVariant`` and
    /// ``Kind/invalidOptions``; `nil` otherwise.
    public var detail: String? {
        switch code {
        case .unsupportedVariant(_, let detail), .invalidOptions(let detail): detail
        default: nil
        }
    }

    /// The decoder library's own text, for ``Kind/corrupt``; `nil` otherwise.
    public var message: String? {
        if case .corrupt(_, let message) = code { return message }
        return nil
    }

    /// The declared width in pixels, for ``Kind/tooManyPixels``; `nil` otherwise.
    public var width: Int? {
        if case .tooManyPixels(let width, _, _) = code { return width }
        return nil
    }

    /// The declared height in pixels, for ``Kind/tooManyPixels``; `nil` otherwise.
    public var height: Int? {
        if case .tooManyPixels(_, let height, _) = code { return height }
        return nil
    }

    /// The pixel-count limit, for ``Kind/tooManyPixels``; `nil` otherwise.
    public var limit: Int? {
        if case .tooManyPixels(_, _, let limit) = code { return limit }
        return nil
    }

    /// A one-line, human-readable description (used in logs and CLI messages).
    public var description: String {
        switch code {
        case .emptyData: "empty data"
        case .unknownFormat: "data is not a known image format"
        case .unsupportedFormat(let f): "no decoder for \(f.rawValue)"
        case .unsupportedVariant(let f, let detail): "unsupported \(f.rawValue) variant: \(detail)"
        case .invalidOptions(let detail): "invalid decoding options: \(detail)"
        case .tooManyPixels(let w, let h, let limit): "image is \(w)×\(h) pixels, over the limit of \(limit) pixels"
        case .truncated(let f): "truncated \(f.rawValue) data"
        case .corrupt(let f, let message): "corrupt \(f?.rawValue ?? "image") data: \(message)"
        }
    }

    /// The same text as ``description``, so that `localizedDescription` logs it.
    public var errorDescription: String? { description }

    /// Whether `value` is this error: lets `catch ImageDecodingError.emptyData` match an error thrown as
    /// `any Error`, as it did when the type was an enum.
    public static func ~= (pattern: ImageDecodingError, value: any Swift.Error) -> Bool { (value as? ImageDecodingError) == pattern }
}
