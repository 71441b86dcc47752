import Foundation

/// Transforms a decoded image: resize, crop, blur, … .
///
/// Every processor has a stable ``identifier`` that enters the memory and disk cache keys, so two
/// processors of yours with the same identifier must produce the same pixels. The keys hold it
/// in a namespace (``ImageProcessors/cacheIdentifier(of:)``): Pictor's own processors are
/// `pictor.<identifier>`, every other type's are `user:<identifier>`, so a processor of yours
/// named `"grayscale"` never shares an entry with the built-in ``ImageProcessors/Grayscale``.
public protocol ImageProcessing: Sendable {
    /// A stable, unambiguous identifier including every parameter that changes the pixels,
    /// e.g. `resize(256x-,aspectFit,noup)`. Any text: the cache keys length-prefix it and put
    /// it in its type's namespace (``ImageProcessors/cacheIdentifier(of:)``).
    var identifier: String { get }

    /// Processes `image`.
    ///
    /// - Parameters:
    ///   - image: the decoded (or previously processed) image.
    ///   - context: the renderer to do pixel work with.
    /// - Throws: ``ImageProcessingError``.
    func process(_ image: Image, context: ImageProcessingContext) throws -> Image

    /// When this processor can be done by the decoder at decode time (shrink-on-load), the
    /// thumbnail it is equivalent to; `nil` otherwise (the default). The pipeline folds a leading
    /// processor with a non-nil value into the decode.
    var decodeTimeThumbnail: ThumbnailOptions? { get }
}

extension ImageProcessing {
    /// Default: cannot be folded into decoding.
    public var decodeTimeThumbnail: ThumbnailOptions? { nil }
}

/// Marks Pictor's own processors, whose cache identifiers are in the `pictor.` namespace
/// (``ImageProcessors/cacheIdentifier(of:)``). `package`, so that no type outside Pictor can
/// claim the namespace.
package protocol BuiltInImageProcessor: ImageProcessing {}

/// What a processor may use while it runs.
public struct ImageProcessingContext: Sendable {
    /// The pixel engine that does the work (libvips in the `Pictor` product).
    public var renderer: any ImageRendering

    /// Creates a context around a renderer.
    public init(renderer: any ImageRendering) {
        self.renderer = renderer
    }
}

/// Why processing failed.
///
/// A struct rather than an enum, so that a new kind of failure is not a breaking change: match
/// with `==` against a static member (`error == .noRenderer`), or switch over ``kind`` with a
/// `default:` branch, and read the details from ``processor`` and ``message``.
public struct ImageProcessingError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The kind of a processing failure, without its details: the value to `switch` over (with
    /// a `default:` branch, since kinds may be added).
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kind's name, e.g. `"invalidParameter"`.
        public let description: String
        private init(_ description: String) { self.description = description }

        /// ``ImageProcessingError/invalidParameter(processor:message:)``.
        public static let invalidParameter = Kind("invalidParameter")
        /// ``ImageProcessingError/noRenderer``.
        public static let noRenderer = Kind("noRenderer")
        /// ``ImageProcessingError/failed(processor:message:)``.
        public static let failed = Kind("failed")
    }

    /// The failure and its details; private so that a new kind is not a breaking change.
    private enum Code: Sendable, Equatable {
        case invalidParameter(processor: String, message: String)
        case noRenderer
        case failed(processor: String, message: String)
    }

    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// A parameter is out of range (zero size, negative radius, …).
    public static func invalidParameter(processor: String, message: String) -> ImageProcessingError {
        .init(.invalidParameter(processor: processor, message: message))
    }
    /// No pixel engine is configured (the core product alone has none).
    public static let noRenderer = ImageProcessingError(.noRenderer)
    /// The pixel engine failed; `message` is its own text.
    public static func failed(processor: String, message: String) -> ImageProcessingError {
        .init(.failed(processor: processor, message: message))
    }

    /// The kind of failure, without its details.
    public var kind: Kind {
        switch code {
        case .invalidParameter: .invalidParameter
        case .noRenderer: .noRenderer
        case .failed: .failed
        }
    }

    /// The processor's name as the message gives it, for ``Kind/invalidParameter`` and
    /// ``Kind/failed``; `nil` otherwise.
    public var processor: String? {
        switch code {
        case .invalidParameter(let p, _), .failed(let p, _): p
        case .noRenderer: nil
        }
    }

    /// What is wrong, or the pixel engine's own text, for ``Kind/invalidParameter`` and
    /// ``Kind/failed``; `nil` otherwise.
    public var message: String? {
        switch code {
        case .invalidParameter(_, let m), .failed(_, let m): m
        case .noRenderer: nil
        }
    }

    /// A one-line, human-readable description (used in logs and CLI messages).
    public var description: String {
        switch code {
        case .invalidParameter(let p, let m): "\(p): invalid parameter: \(m)"
        case .noRenderer: "no image renderer configured"
        case .failed(let p, let m): "\(p) failed: \(m)"
        }
    }

    /// The same text as ``description``, so that `localizedDescription` logs it.
    public var errorDescription: String? { description }

    /// Whether `value` is this error: lets `catch ImageProcessingError.noRenderer` match an error thrown as
    /// `any Error`, as it did when the type was an enum.
    public static func ~= (pattern: ImageProcessingError, value: any Swift.Error) -> Bool { (value as? ImageProcessingError) == pattern }
}
