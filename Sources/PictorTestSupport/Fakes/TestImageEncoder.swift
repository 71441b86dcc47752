import Foundation
import PictorCore
import Synchronization

/// An ``/PictorCore/ImageEncoding`` writing ``TestImageCodec``'s format whatever the requested format,
/// counting its calls; it can be made to fail.
public final class TestImageEncoder: ImageEncoding, Sendable {
    private let state = Mutex((count: 0, fails: false))

    /// Creates an encoder.
    public init() {}

    /// Number of ``encode(_:as:quality:)`` calls so far.
    public var encodeCount: Int { state.withLock { $0.count } }
    /// Makes every later encode throw ``/PictorCore/ImageEncodingError/failed(_:message:)``.
    public func setFailing(_ fails: Bool) { state.withLock { $0.fails = fails } }

    /// Writes ``TestImageCodec``'s format whatever `format` and `quality` say, counting the call.
    ///
    /// - Throws: ``/PictorCore/ImageEncodingError/failed(_:message:)`` when set to fail.
    public func encode(_ image: Image, as format: ImageFormat, quality: Int) throws -> Data {
        let fails = state.withLock { s in s.count += 1; return s.fails }
        if fails { throw ImageEncodingError.failed(format, message: "test encoder set to fail") }
        return TestImageCodec.encode(image)
    }
}
