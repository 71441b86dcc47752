import Foundation
import PictorCore
import Synchronization

/// A pure-Swift ``/PictorCore/ImageRendering`` for tests: nearest-neighbour resize, crop, grey, and corner
/// / circle masks that add alpha; blur returns a copy. It counts its operations by name.
/// Sizes follow ``TestImageCodec/size(width:height:thumbnail:)``.
public final class InMemoryRenderer: ImageRendering, Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// Creates a renderer.
    public init() {}

    /// How many times each operation ran, by name (`resize`, `crop`, `roundCorners`, `circle`,
    /// `gaussianBlur`, `grayscale`).
    public var operationCounts: [String: Int] { counts.withLock { $0 } }

    private func count(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }

    /// Nearest-neighbour resize to the size ``TestImageCodec/size(width:height:thumbnail:)`` gives.
    ///
    /// - Throws: ``/PictorCore/ImageProcessingError/invalidParameter(processor:message:)`` for a zero size.
    public func resize(_ image: Image, to options: ThumbnailOptions) throws -> Image {
        count("resize")
        guard options.width > 0, options.height ?? 1 > 0 else {
            throw ImageProcessingError.invalidParameter(processor: "resize", message: "size must be positive")
        }
        let size = TestImageCodec.size(width: image.width, height: image.height, thumbnail: options)
        return Self.sample(image, width: size.width, height: size.height) { x, y in
            (x * image.width / size.width, y * image.height / size.height)
        }
    }

    /// Cuts out the rectangle, clamped to the image.
    ///
    /// - Throws: ``/PictorCore/ImageProcessingError/invalidParameter(processor:message:)`` for an empty rectangle.
    public func crop(_ image: Image, x: Int, y: Int, width: Int, height: Int) throws -> Image {
        count("crop")
        let x0 = max(0, min(x, image.width - 1)), y0 = max(0, min(y, image.height - 1))
        let w = min(width, image.width - x0), h = min(height, image.height - y0)
        guard w > 0, h > 0 else { throw ImageProcessingError.invalidParameter(processor: "crop", message: "empty rectangle") }
        return Self.sample(image, width: w, height: h) { px, py in (x0 + px, y0 + py) }
    }

    /// Adds an opaque alpha band (no real mask).
    public func roundCorners(_ image: Image, radius: Double) throws -> Image {
        count("roundCorners")
        return Self.withAlpha(image)
    }

    /// Centre-crops to a square and adds an opaque alpha band (no real mask).
    public func circle(_ image: Image) throws -> Image {
        count("circle")
        let side = min(image.width, image.height)
        let square = Self.sample(image, width: side, height: side) { x, y in
            (x + (image.width - side) / 2, y + (image.height - side) / 2)
        }
        return Self.withAlpha(square)
    }

    /// Returns the image unchanged.
    ///
    /// - Throws: ``/PictorCore/ImageProcessingError/invalidParameter(processor:message:)`` when `sigma <= 0`.
    public func gaussianBlur(_ image: Image, sigma: Double) throws -> Image {
        count("gaussianBlur")
        guard sigma > 0 else { throw ImageProcessingError.invalidParameter(processor: "blur", message: "sigma must be > 0") }
        return image
    }

    /// Averages red, green and blue into grey, keeping alpha.
    public func grayscale(_ image: Image) throws -> Image {
        count("grayscale")
        let layout: Image.PixelLayout = image.hasAlpha ? .grayAlpha : .gray
        let src = [UInt8](image.pixels)
        var out = [UInt8]()
        out.reserveCapacity(image.width * image.height * layout.bands)
        for i in 0..<(image.width * image.height) {
            let p = i * image.bands
            out.append(image.bands >= 3 ? UInt8((Int(src[p]) + Int(src[p + 1]) + Int(src[p + 2])) / 3) : src[p])
            if image.hasAlpha { out.append(src[p + image.bands - 1]) }
        }
        return Image(width: image.width, height: image.height, layout: layout, pixels: Data(out))
    }

    /// Builds a `width × height` image whose pixel (x, y) is `source` at `map(x, y)`.
    static func sample(_ image: Image, width: Int, height: Int, map: (Int, Int) -> (Int, Int)) -> Image {
        let bands = image.bands
        let src = [UInt8](image.pixels)
        var out = [UInt8](repeating: 0, count: width * height * bands)
        for y in 0..<height {
            for x in 0..<width {
                let (sx, sy) = map(x, y)
                let s = (sy * image.width + sx) * bands, d = (y * width + x) * bands
                for b in 0..<bands { out[d + b] = src[s + b] }
            }
        }
        return Image(width: width, height: height, layout: image.layout, pixels: Data(out), sourceFormat: image.sourceFormat)
    }

    /// The same pixels with an opaque alpha band added when missing.
    static func withAlpha(_ image: Image) -> Image {
        guard !image.hasAlpha else { return image }
        let layout: Image.PixelLayout = image.layout == .gray ? .grayAlpha : .rgba
        let src = [UInt8](image.pixels)
        var out = [UInt8]()
        out.reserveCapacity(image.width * image.height * layout.bands)
        for i in 0..<(image.width * image.height) {
            out.append(contentsOf: src[(i * image.bands)..<((i + 1) * image.bands)])
            out.append(255)
        }
        return Image(width: image.width, height: image.height, layout: layout, pixels: Data(out))
    }
}
