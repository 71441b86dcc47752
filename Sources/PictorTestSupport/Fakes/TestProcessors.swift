import Foundation
import PictorCore
import Synchronization

/// Counts processor applications by identifier, shared by the test processors of one test.
public final class ProcessorLog: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// Creates an empty log.
    public init() {}

    /// Applications of the processor with `identifier`.
    public func count(_ identifier: String) -> Int { counts.withLock { $0[identifier] ?? 0 } }
    /// Applications of every processor.
    public var total: Int { counts.withLock { $0.values.reduce(0, +) } }

    func record(_ identifier: String) { counts.withLock { $0[identifier, default: 0] += 1 } }
}

/// A processor that tags its output: it writes `tag` into the first sample (the marker that
/// ``TestImageCodec`` keeps), so a test can tell which chain produced an image. It can fail on
/// demand, and it counts its applications in a ``ProcessorLog``.
public struct TaggingProcessor: ImageProcessing {
    /// The byte written into the first sample.
    public let tag: UInt8
    /// Whether ``process(_:context:)`` throws ``/PictorCore/ImageProcessingError/failed(processor:message:)``.
    public let fails: Bool
    /// Where applications are counted.
    public let log: ProcessorLog?

    /// Creates a tagging processor.
    public init(tag: UInt8, fails: Bool = false, log: ProcessorLog? = nil) {
        self.tag = tag
        self.fails = fails
        self.log = log
    }

    /// `tag(<n>)`, or `tag(<n>,fail)` when failing.
    public var identifier: String { fails ? "tag(\(tag),fail)" : "tag(\(tag))" }

    /// Writes ``tag`` into the first sample, counting the call.
    ///
    /// - Throws: ``/PictorCore/ImageProcessingError/failed(processor:message:)`` when ``fails``.
    public func process(_ image: Image, context: ImageProcessingContext) throws -> Image {
        log?.record(identifier)
        if fails { throw ImageProcessingError.failed(processor: identifier, message: "test processor set to fail") }
        var out = image
        var pixels = image.frames[0].pixels
        pixels[pixels.startIndex] = tag
        out.frames[0].pixels = pixels
        return out
    }
}

/// A resize processor for tests: it asks the context's renderer to resize, and offers itself to
/// the decoder as a ``/PictorCore/ImageProcessing/decodeTimeThumbnail`` (so the pipeline folds it into the
/// decode when it leads the chain).
public struct TestResizeProcessor: ImageProcessing {
    /// The target size.
    public let thumbnail: ThumbnailOptions
    /// Where applications are counted.
    public let log: ProcessorLog?

    /// Creates a resize to `width` (and optional `height`) pixels, aspect fit.
    public init(width: Int, height: Int? = nil, log: ProcessorLog? = nil) {
        self.thumbnail = ThumbnailOptions(width: width, height: height)
        self.log = log
    }

    /// `resize(<thumbnail identifier>)`.
    public var identifier: String { "resize(\(thumbnail.identifier))" }
    /// The thumbnail this resize equals.
    public var decodeTimeThumbnail: ThumbnailOptions? { thumbnail }

    /// Resizes with the context's renderer, counting the call.
    ///
    /// - Throws: what the renderer throws.
    public func process(_ image: Image, context: ImageProcessingContext) throws -> Image {
        log?.record(identifier)
        return try context.renderer.resize(image, to: thumbnail)
    }
}
