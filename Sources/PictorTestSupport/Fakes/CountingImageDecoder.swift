import Foundation
import PictorCore
import Synchronization

/// An ``/PictorCore/ImageDecoding`` of ``TestImageCodec``'s format that counts its calls and records the
/// options it got. It checks the pixel limit before "decoding", honours the thumbnail
/// (shrink-on-load), and can be made to fail.
public final class CountingImageDecoder: ImageDecoding, Sendable {
    private struct State {
        var count = 0
        var options: [ImageDecodingOptions] = []
        var failure: ImageDecodingError?
    }
    private let state = Mutex(State())

    /// Creates a decoder.
    public init() {}

    /// Number of ``decode(_:options:)`` calls so far (failed ones included).
    public var decodeCount: Int { state.withLock { $0.count } }
    /// The options of every call, in order.
    public var recordedOptions: [ImageDecodingOptions] { state.withLock { $0.options } }
    /// Makes every later decode throw `error` (`nil` restores normal decoding).
    public func failAll(with error: ImageDecodingError?) { state.withLock { $0.failure = error } }

    /// Decodes ``TestImageCodec``'s format (at the thumbnail size, if any), counting the call.
    ///
    /// - Throws: the configured failure, ``/PictorCore/ImageDecodingError/tooManyPixels(width:height:limit:)``
    ///   over the limit, or a header error from ``TestImageCodec/header(_:)``.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
        let failure = state.withLock { s in
            s.count += 1
            s.options.append(options)
            return s.failure
        }
        if let failure { throw failure }
        let h = try TestImageCodec.header(data)
        guard h.width * h.height <= options.maximumPixelCount else {
            throw ImageDecodingError.tooManyPixels(width: h.width, height: h.height, limit: options.maximumPixelCount)
        }
        let size = options.thumbnail.map { TestImageCodec.size(width: h.width, height: h.height, thumbnail: $0) } ?? (h.width, h.height)
        return TestImageCodec.makeImage(width: size.0, height: size.1, layout: h.layout, fill: h.fill, marker: h.marker)
    }
}
