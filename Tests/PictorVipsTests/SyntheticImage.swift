import Foundation
import PictorCore

/// Synthetic encoder inputs: each pixel layout, with alpha that is opaque, partial and zero
/// (libwebp rewrites the colour under zero alpha), at odd and tiny sizes.
enum SyntheticImage: String, CaseIterable, Sendable {
    case rgb = "rgb 123×77"
    case rgba = "rgba 97×61"
    case grey = "grey 64×40"
    case greyAlpha = "grey+alpha 33×21"
    case rgbPixel = "rgb 1×1"
    case rgbaPixel = "rgba 1×1"
    case greyPixel = "grey 1×1"
    case column = "rgb 1×17"
    case row = "rgba 17×1"
    case odd = "rgb 3×5"
    case opaqueRGBA = "rgba opaque 40×30"

    var image: Image {
        switch self {
        case .rgb: Self.make(123, 77, .rgb)
        case .rgba: Self.make(97, 61, .rgba)
        case .grey: Self.make(64, 40, .gray)
        case .greyAlpha: Self.make(33, 21, .grayAlpha)
        case .rgbPixel: Self.make(1, 1, .rgb)
        case .rgbaPixel: Self.make(1, 1, .rgba)
        case .greyPixel: Self.make(1, 1, .gray)
        case .column: Self.make(1, 17, .rgb)
        case .row: Self.make(17, 1, .rgba)
        case .odd: Self.make(3, 5, .rgb)
        case .opaqueRGBA: Self.make(40, 30, .rgba, opaque: true)
        }
    }

    /// Gradients with some texture (so every quality matters); alpha, when there is one, is zero
    /// in the left quarter, a ramp in the middle and opaque on the right unless `opaque`.
    static func make(_ width: Int, _ height: Int, _ layout: Image.PixelLayout, opaque: Bool = false) -> Image {
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * layout.bands)
        for y in 0..<height {
            for x in 0..<width {
                let r = UInt8((x * 255 / max(1, width - 1) + (x * y) % 13) & 0xFF)
                let g = UInt8((y * 255 / max(1, height - 1) + (x ^ y) % 7) & 0xFF)
                let b = UInt8((64 + (x * 31 + y * 17) % 90) & 0xFF)
                let alpha: UInt8 = opaque || x >= width * 3 / 4 ? 255 : x < width / 4 ? 0 : UInt8(x * 255 / max(1, width))
                switch layout {
                case .gray: bytes.append(r / 2 &+ g / 2)
                case .grayAlpha: bytes += [r / 2 &+ g / 2, alpha]
                case .rgb: bytes += [r, g, b]
                case .rgba: bytes += [r, g, b, alpha]
                }
            }
        }
        return Image(width: width, height: height, layout: layout, pixels: Data(bytes))
    }
}
