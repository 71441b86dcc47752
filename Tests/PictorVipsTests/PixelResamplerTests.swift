import Foundation
@testable import PictorVips
import Testing

/// The JPEG fast path's fused resample + orientation + crop against plain references: a
/// triangle filter written out in `Double` (alpha premultiplied for 2 and 4 bands), and the
/// separate steps applied one after another.
@Suite("Pixel resampler")
struct PixelResamplerTests {
    /// Seeded pixels with structure (gradients) and noise.
    static func pixels(width: Int, height: Int, bands: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<(width * height * bands)).map { i in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let x = (i / bands) % width, y = i / bands / width, c = i % bands
            return UInt8(truncatingIfNeeded: (x * 7 + y * 3 + c * 50) % 200 + Int(state >> 58))
        }
    }

    static func fused(_ src: [UInt8], _ w: Int, _ h: Int, _ bands: Int, to rw: Int, _ rh: Int,
                      orientation: Int = 1, crop: (Int, Int)? = nil) -> [UInt8] {
        let swaps = orientation >= 5
        let (cw, ch) = crop ?? (swaps ? rh : rw, swaps ? rw : rh)
        let data = src.withUnsafeBufferPointer {
            PixelResampler.thumbnail($0.baseAddress!, width: w, height: h, bands: bands, resizedTo: rw, rh,
                                     orientation: orientation, croppedTo: cw, ch)
        }
        #expect(data.count == cw * ch * bands)
        return [UInt8](data)
    }

    /// The triangle filter of the fast path, in `Double`, one output pixel at a time.
    static func reference(_ src: [UInt8], _ w: Int, _ h: Int, _ bands: Int, to rw: Int, _ rh: Int) -> [UInt8] {
        func taps(_ input: Int, _ output: Int, _ i: Int) -> [(Int, Double)] {
            if input == output { return [(i, 1)] }
            let scale = Double(input) / Double(output), support = max(1, scale)
            let centre = (Double(i) + 0.5) * scale
            let lo = max(0, Int((centre - support).rounded(.down))), hi = min(input, Int((centre + support).rounded(.up)))
            let raw = (lo..<hi).map { ($0, max(0, 1 - abs(Double($0) + 0.5 - centre) / support)) }
            let sum = raw.reduce(0) { $0 + $1.1 }
            return raw.map { ($0.0, $0.1 / sum) }
        }
        var out = [UInt8](repeating: 0, count: rw * rh * bands)
        for y in 0..<rh {
            let ty = taps(h, rh, y)
            for x in 0..<rw {
                let tx = taps(w, rw, x)
                // With 2 or 4 bands the last is alpha: colour filtered premultiplied by it.
                let alphaBand = bands == 2 || bands == 4 ? bands - 1 : nil
                func sample(_ sx: Int, _ sy: Int, _ c: Int) -> Double {
                    let value = Double(src[(sy * w + sx) * bands + c])
                    guard let alphaBand, c != alphaBand else { return value }
                    return value * Double(src[(sy * w + sx) * bands + alphaBand]) / 255
                }
                var sums = [Double](repeating: 0, count: bands)
                for c in 0..<bands {
                    for (sy, wy) in ty { for (sx, wx) in tx { sums[c] += wy * wx * sample(sx, sy, c) } }
                }
                for c in 0..<bands {
                    var value = sums[c]
                    if let alphaBand, c != alphaBand {
                        let alpha = min(255, max(0, sums[alphaBand]))
                        value = alpha > 0 ? value * 255 / alpha : 0
                    }
                    out[(y * rw + x) * bands + c] = UInt8(min(255, max(0, value)) + 0.5)
                }
            }
        }
        return out
    }

    static func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    @Test(arguments: [1, 2, 3, 4, 5])
    func constantImageStaysConstant(bands: Int) {
        let src = [UInt8](repeating: 0, count: 37 * 23 * bands).enumerated().map { UInt8(17 + 40 * ($0.offset % bands)) }
        for (rw, rh) in [(10, 7), (18, 11), (37, 5), (1, 1), (50, 40)] {
            let out = Self.fused(src, 37, 23, bands, to: rw, rh, orientation: 6, crop: (max(1, rh - 1), rw))
            for (i, v) in out.enumerated() { #expect(v == UInt8(17 + 40 * (i % bands)), "\(rw)x\(rh) byte \(i)") }
        }
    }

    @Test func gradientStaysMonotonic() {
        let w = 301, h = 9
        let src = (0..<(w * h * 3)).map { UInt8(($0 / 3) % w * 255 / (w - 1)) }
        for rw in [150, 77, 100, 13] {
            let out = Self.fused(src, w, h, 3, to: rw, 4)
            for y in 0..<4 {
                for x in 1..<rw {
                    let a = out[(y * rw + x - 1) * 3], b = out[(y * rw + x) * 3]
                    #expect(a <= b, "rw \(rw) at \(x),\(y): \(a) > \(b)")
                }
            }
            #expect(out[0] < 20 && out[(rw - 1) * 3] > 235, "rw \(rw) ends \(out[0]) \(out[(rw - 1) * 3])")
        }
    }

    @Test(arguments: [1, 3, 4, 2])
    func resampleMatchesTheTriangleFilter(bands: Int) {
        for (w, h, rw, rh) in [(512, 384, 256, 192), (75, 100, 19, 26), (90, 60, 45, 60), (33, 20, 80, 50), (64, 48, 64, 13)] {
            let src = Self.pixels(width: w, height: h, bands: bands)
            let out = Self.fused(src, w, h, bands, to: rw, rh)
            let worst = Self.maxDifference(out, Self.reference(src, w, h, bands, to: rw, rh))
            #expect(worst <= 1, "\(w)x\(h)x\(bands) to \(rw)x\(rh): off by \(worst)")
        }
    }

    /// Fused = resample, then orient, then crop: for every orientation, band count and crop.
    @Test(arguments: 1...8)
    func fusedMatchesTheSeparateSteps(orientation: Int) {
        for bands in [1, 3, 4, 2] {
            for (w, h, rw, rh) in [(120, 90, 50, 37), (90, 120, 40, 53), (40, 30, 40, 30)] {
                let src = Self.pixels(width: w, height: h, bands: bands, seed: UInt64(orientation))
                let resized = PixelResampler.resample(src, width: w, height: h, bands: bands, to: rw, rh)
                let (oriented, ow, oh) = PixelResampler.orient(resized, width: rw, height: rh, bands: bands, orientation: orientation)
                for (cw, ch) in [(ow, oh), (ow - 7, oh), (ow, oh - 4), (ow / 2, oh / 3), (1, 1)] {
                    let expected = PixelResampler.centreCrop(oriented, width: ow, height: oh, bands: bands, to: cw, ch)
                    let out = Self.fused(src, w, h, bands, to: rw, rh, orientation: orientation, crop: (cw, ch))
                    #expect(out == expected, "o\(orientation) \(bands) bands \(w)x\(h) to \(rw)x\(rh) crop \(cw)x\(ch)")
                }
            }
        }
    }

    /// Corners of a four-colour image land where EXIF says, after a 2× reduction.
    @Test(arguments: 1...8)
    func orientationMapsCorners(orientation: Int) {
        // Stored quadrants: top-left 10, top-right 80, bottom-left 150, bottom-right 220.
        let w = 40, h = 20
        let src = (0..<(w * h)).map { i -> UInt8 in
            let x = i % w, y = i / w
            return [10, 80, 150, 220][(y < h / 2 ? 0 : 2) + (x < w / 2 ? 0 : 1)]
        }
        let out = Self.fused(src, w, h, 1, to: 20, 10, orientation: orientation)
        let ow = orientation >= 5 ? 10 : 20, oh = orientation >= 5 ? 20 : 10
        let corners = [out[0], out[ow - 1], out[(oh - 1) * ow], out[oh * ow - 1]]
        // Displayed top-left, top-right, bottom-left, bottom-right, as stored corners (EXIF 1...8).
        let expected: [Int: [UInt8]] = [
            1: [10, 80, 150, 220], 2: [80, 10, 220, 150], 3: [220, 150, 80, 10], 4: [150, 220, 10, 80],
            5: [10, 150, 80, 220], 6: [150, 10, 220, 80], 7: [220, 80, 150, 10], 8: [80, 220, 10, 150],
        ]
        #expect(corners == expected[orientation], "orientation \(orientation): \(corners)")
    }

    @Test func centreCropIsExact() {
        // Identity size: each pixel holds its own coordinates.
        let w = 10, h = 7
        let src = (0..<(w * h)).flatMap { [UInt8($0 % w), UInt8($0 / w)] }
        let out = Self.fused(src, w, h, 2, to: w, h, crop: (4, 3))
        let expected = (2..<5).flatMap { y in (3..<7).flatMap { x in [UInt8(x), UInt8(y)] } }
        #expect(out == expected)
        // Odd leftovers round down on the left and top, as libvips' centre crop does.
        let cut = PixelResampler.centreCrop(src, width: w, height: h, bands: 2, to: 7, 2)
        #expect(Array(cut.prefix(2)) == [1, 2] && Array(cut.suffix(2)) == [7, 3])
    }

    /// Every output byte is written: two runs into buffers filled differently agree.
    @Test func everyOutputByteIsWritten() {
        let src = Self.pixels(width: 64, height: 48, bands: 3)
        for orientation in 1...8 {
            var results: [[UInt8]] = []
            for fill: UInt8 in [0, 255] {
                var out = [UInt8](repeating: fill, count: 20 * 11 * 3)
                src.withUnsafeBufferPointer { s in
                    out.withUnsafeMutableBufferPointer { o in
                        PixelResampler.render(s.baseAddress!, width: 64, height: 48, bands: 3, resizedTo: 31, 23,
                                              orientation: orientation, croppedTo: 20, 11,
                                              into: o.baseAddress!)
                    }
                }
                results.append(out)
            }
            #expect(results[0] == results[1], "orientation \(orientation)")
        }
    }
}
