import Foundation
import PictorCore

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
    /// - Throws: ``/PictorCore/ImageDecodingError/emptyData``, ``/PictorCore/ImageDecodingError/unknownFormat`` (no
    ///   magic) or ``/PictorCore/ImageDecodingError/corrupt(_:message:)`` (a short or invalid header).
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
