import Foundation

/// Transforms a decoded image: resize, crop, blur, … .
///
/// Every processor has a stable ``identifier`` that enters the memory and disk cache keys, so two
/// processors with the same identifier must produce the same pixels.
public protocol ImageProcessing: Sendable {
    /// A stable, unambiguous identifier including every parameter, e.g. `resize(256x-,aspectFit,noup)`.
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
public enum ImageProcessingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A parameter is out of range (zero size, negative radius, …).
    case invalidParameter(processor: String, message: String)
    /// No pixel engine is configured (the core product alone has none).
    case noRenderer
    /// The pixel engine failed; `message` is its own text.
    case failed(processor: String, message: String)

    /// A one-line, human-readable description (used in logs and CLI messages).
    public var description: String {
        switch self {
        case .invalidParameter(let p, let m): "\(p): invalid parameter: \(m)"
        case .noRenderer: "no image renderer configured"
        case .failed(let p, let m): "\(p) failed: \(m)"
        }
    }
}
