import Foundation
import PictorCore

/// Synthetic images with known pixels.
enum TestImages {
    /// `width × height` RGB: red = x scaled to 0...255, green = y scaled, blue = 64.
    static func gradient(width: Int, height: Int) -> Image {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                bytes[i] = UInt8(x * 255 / max(1, width - 1))
                bytes[i + 1] = UInt8(y * 255 / max(1, height - 1))
                bytes[i + 2] = 64
            }
        }
        return Image(width: width, height: height, layout: .rgb, pixels: Data(bytes))
    }

    /// One colour everywhere.
    static func solid(width: Int, height: Int, layout: Image.PixelLayout, _ pixel: [UInt8]) -> Image {
        precondition(pixel.count == layout.bands)
        let bytes = (0..<(width * height)).flatMap { _ in pixel }
        return Image(width: width, height: height, layout: layout, pixels: Data(bytes))
    }

    /// The bytes of pixel `(x, y)` of frame 0.
    static func pixel(_ image: Image, _ x: Int, _ y: Int) -> [UInt8] {
        let start = (y * image.width + x) * image.bands
        return Array(image.pixels[start..<start + image.bands])
    }
}
