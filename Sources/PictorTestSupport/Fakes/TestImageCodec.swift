import Foundation
import PictorCore
import Synchronization

/// A tiny image format for tests, decodable without any C library: the magic `PTST`, width and
/// height (big-endian `UInt16`), the layout's band count, a fill byte and a marker byte. It
/// decodes to a solid image of the fill byte whose first sample is the marker (processors in
/// tests write their tag there, so it survives a disk round trip).
///
/// ```swift
/// let data = TestImageCodec.encode(width: 640, height: 480)
/// let image = try CountingImageDecoder().decode(data, options: ImageDecodingOptions())
/// ```
public enum TestImageCodec {
    /// The four magic bytes, `PTST`.
    public static let magic = Data("PTST".utf8)

    /// Encodes an image description: sizes in pixels (1...65,535), `fill` and `marker` bytes.
    public static func encode(width: Int, height: Int, layout: Image.PixelLayout = .rgb, fill: UInt8 = 0x80, marker: UInt8 = 0) -> Data {
        var data = magic
        data.append(contentsOf: [UInt8(width >> 8), UInt8(width & 0xFF), UInt8(height >> 8), UInt8(height & 0xFF)])
        data.append(contentsOf: [UInt8(layout.rawValue), fill, marker])
        return data
    }

    /// Encodes `image`'s size, layout, fill (its last byte) and marker (its first byte).
    public static func encode(_ image: Image) -> Data {
        let pixels = image.pixels
        return encode(width: image.width, height: image.height, layout: image.layout,
                      fill: pixels.last ?? 0, marker: pixels.first ?? 0)
    }

    /// The header fields of `data`.
    ///
    /// - Throws: ``ImageDecodingError/emptyData``, ``ImageDecodingError/unknownFormat`` (no
    ///   magic) or ``ImageDecodingError/corrupt(_:message:)`` (a short or invalid header).
    public static func header(_ data: Data) throws -> (width: Int, height: Int, layout: Image.PixelLayout, fill: UInt8, marker: UInt8) {
        guard !data.isEmpty else { throw ImageDecodingError.emptyData }
        let bytes = [UInt8](data)
        guard bytes.starts(with: magic) else { throw ImageDecodingError.unknownFormat }
        guard bytes.count >= 11, let layout = Image.PixelLayout(rawValue: Int(bytes[8])) else {
            throw ImageDecodingError.corrupt(nil, message: "short or invalid PTST header")
        }
        let width = Int(bytes[4]) << 8 | Int(bytes[5]), height = Int(bytes[6]) << 8 | Int(bytes[7])
        guard width > 0, height > 0 else { throw ImageDecodingError.corrupt(nil, message: "zero size") }
        return (width, height, layout, bytes[9], bytes[10])
    }

    /// The size an image of `width × height` is decoded at for `thumbnail` (aspect fit / fill /
    /// stretch; no upscaling unless allowed).
    public static func size(width: Int, height: Int, thumbnail: ThumbnailOptions) -> (width: Int, height: Int) {
        let targetW = Double(thumbnail.width)
        let targetH = Double(thumbnail.height ?? Int((Double(height) * targetW / Double(width)).rounded()))
        var scaleX = targetW / Double(width), scaleY = targetH / Double(height)
        switch thumbnail.contentMode {
        case .aspectFit: scaleX = min(scaleX, scaleY); scaleY = scaleX
        case .aspectFill: scaleX = max(scaleX, scaleY); scaleY = scaleX
        case .stretch: break
        }
        if !thumbnail.allowsUpscaling { scaleX = min(scaleX, 1); scaleY = min(scaleY, 1) }
        var w = max(1, Int((Double(width) * scaleX).rounded())), h = max(1, Int((Double(height) * scaleY).rounded()))
        if thumbnail.contentMode == .aspectFill {
            w = min(w, thumbnail.width)
            if let th = thumbnail.height { h = min(h, th) }
        }
        return (w, h)
    }

    /// A solid image of `fill` with `marker` as its first sample.
    public static func makeImage(width: Int, height: Int, layout: Image.PixelLayout = .rgb, fill: UInt8 = 0x80, marker: UInt8 = 0) -> Image {
        var pixels = Data(repeating: fill, count: width * height * layout.bands)
        pixels[0] = marker
        return Image(width: width, height: height, layout: layout, pixels: pixels)
    }
}

/// An ``ImageDecoding`` of ``TestImageCodec``'s format that counts its calls and records the
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
    /// - Throws: the configured failure, ``ImageDecodingError/tooManyPixels(width:height:limit:)``
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

/// An ``ImageEncoding`` writing ``TestImageCodec``'s format whatever the requested format,
/// counting its calls; it can be made to fail.
public final class TestImageEncoder: ImageEncoding, Sendable {
    private let state = Mutex((count: 0, fails: false))

    /// Creates an encoder.
    public init() {}

    /// Number of ``encode(_:as:quality:)`` calls so far.
    public var encodeCount: Int { state.withLock { $0.count } }
    /// Makes every later encode throw ``ImageEncodingError/failed(_:message:)``.
    public func setFailing(_ fails: Bool) { state.withLock { $0.fails = fails } }

    /// Writes ``TestImageCodec``'s format whatever `format` and `quality` say, counting the call.
    ///
    /// - Throws: ``ImageEncodingError/failed(_:message:)`` when set to fail.
    public func encode(_ image: Image, as format: ImageFormat, quality: Int) throws -> Data {
        let fails = state.withLock { s in s.count += 1; return s.fails }
        if fails { throw ImageEncodingError.failed(format, message: "test encoder set to fail") }
        return TestImageCodec.encode(image)
    }
}
