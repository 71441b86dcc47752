import Foundation
import PictorCore

/// Rounded-corner transparency computed directly on the pixels: each pixel's alpha is scaled by
/// how much of it lies inside the rounded rectangle (a one-pixel anti-aliased edge).
enum CornerMask {
    /// Returns `image` with alpha (added when missing) cleared outside the rounded rectangle of
    /// corner `radius` pixels; `radius` is at most half the shorter side.
    static func apply(to image: Image, radius: Double) -> Image {
        let layout: Image.PixelLayout = image.layout == .gray || image.layout == .grayAlpha ? .grayAlpha : .rgba
        let width = image.width, height = image.height
        let bands = layout.bands, colourBands = bands - 1
        let coverage = Self.coverage(width: width, height: height, radius: radius)
        let frames = image.frames.map { frame -> Image.Frame in
            var out = Data(count: width * height * bands)
            frame.pixels.withUnsafeBytes { src in
                out.withUnsafeMutableBytes { dst in
                    let s = src.bindMemory(to: UInt8.self), d = dst.bindMemory(to: UInt8.self)
                    let inBands = image.bands, inAlpha = image.hasAlpha
                    for p in 0..<(width * height) {
                        for c in 0..<colourBands { d[p * bands + c] = s[p * inBands + c] }
                        let alpha = inAlpha ? Double(s[p * inBands + inBands - 1]) : 255
                        d[p * bands + colourBands] = UInt8((alpha * coverage(p % width, p / width)).rounded())
                    }
                }
            }
            return Image.Frame(pixels: out, duration: frame.duration)
        }
        return Image(width: width, height: height, layout: layout, frames: frames, loopCount: image.loopCount,
                     sourceFrameCount: image.sourceFrameCount, sourceFormat: image.sourceFormat, isTruncated: image.isTruncated)
    }

    /// Fraction (0...1) of pixel `(x, y)` inside the rounded rectangle, by the distance of its
    /// centre from the corner circle's centre.
    private static func coverage(width: Int, height: Int, radius: Double) -> (Int, Int) -> Double {
        { x, y in
            guard radius > 0 else { return 1 }
            let px = Double(x) + 0.5, py = Double(y) + 0.5
            let cx = px < radius ? radius : (px > Double(width) - radius ? Double(width) - radius : px)
            let cy = py < radius ? radius : (py > Double(height) - radius ? Double(height) - radius : py)
            if cx == px || cy == py { return 1 }
            let distance = ((px - cx) * (px - cx) + (py - cy) * (py - cy)).squareRoot()
            return min(1, max(0, radius - distance + 0.5))
        }
    }
}
