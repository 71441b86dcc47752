import Foundation

/// Small pixel operations for the TurboJPEG fast path, on tightly packed 8-bit buffers: a
/// separable triangle-filter resample, EXIF orientation and a crop.
enum PixelResampler {
    /// Filter taps for one axis: for output `i`, input pixels `start[i] ..< start[i] + count[i]`
    /// with `weights[i * stride ..< i * stride + count[i]]`, summing to 1.
    private struct Taps {
        var start: [Int], count: [Int], weights: [Float], stride: Int

        init(from input: Int, to output: Int) {
            let scale = Double(input) / Double(output)
            let support = max(1, scale)
            stride = Int((support * 2).rounded(.up)) + 2
            start = []; count = []
            weights = [Float](repeating: 0, count: output * stride)
            for i in 0..<output {
                let centre = (Double(i) + 0.5) * scale
                let lo = max(0, Int((centre - support).rounded(.down)))
                let hi = min(input, Int((centre + support).rounded(.up)))
                var sum = 0.0
                var local: [Double] = []
                for j in lo..<hi {
                    let w = max(0, 1 - abs(Double(j) + 0.5 - centre) / support)
                    local.append(w); sum += w
                }
                if sum == 0 { local = [1]; sum = 1 }
                start.append(lo)
                count.append(min(local.count, stride))
                for (k, w) in local.prefix(stride).enumerated() { weights[i * stride + k] = Float(w / sum) }
            }
        }
    }

    /// Resamples `src` (`width × height × bands`) to `outWidth × outHeight`.
    static func resample(_ src: [UInt8], width: Int, height: Int, bands: Int, to outWidth: Int, _ outHeight: Int) -> [UInt8] {
        if width == outWidth, height == outHeight { return src }
        let h = Taps(from: width, to: outWidth), v = Taps(from: height, to: outHeight)
        var mid = [Float](repeating: 0, count: outWidth * height * bands)
        src.withUnsafeBufferPointer { s in
            mid.withUnsafeMutableBufferPointer { m in
                for y in 0..<height {
                    let row = y * width * bands, outRow = y * outWidth * bands
                    for x in 0..<outWidth {
                        let first = h.start[x], n = h.count[x], wBase = x * h.stride
                        for c in 0..<bands {
                            var acc: Float = 0
                            for k in 0..<n { acc += Float(s[row + (first + k) * bands + c]) * h.weights[wBase + k] }
                            m[outRow + x * bands + c] = acc
                        }
                    }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: outWidth * outHeight * bands)
        let rowLength = outWidth * bands
        mid.withUnsafeBufferPointer { m in
            out.withUnsafeMutableBufferPointer { o in
                var acc = [Float](repeating: 0, count: rowLength)
                for y in 0..<outHeight {
                    let first = v.start[y], n = v.count[y], wBase = y * v.stride
                    for i in 0..<rowLength { acc[i] = 0 }
                    for k in 0..<n {
                        let w = v.weights[wBase + k], row = (first + k) * rowLength
                        for i in 0..<rowLength { acc[i] += m[row + i] * w }
                    }
                    let outRow = y * rowLength
                    for i in 0..<rowLength { o[outRow + i] = UInt8(min(255, max(0, acc[i] + 0.5))) }
                }
            }
        }
        return out
    }

    /// Applies EXIF `orientation` (1...8); returns the pixels and the displayed size.
    static func orient(_ src: [UInt8], width: Int, height: Int, bands: Int, orientation: Int) -> ([UInt8], Int, Int) {
        guard (2...8).contains(orientation) else { return (src, width, height) }
        let swaps = orientation >= 5
        let ow = swaps ? height : width, oh = swaps ? width : height
        var out = [UInt8](repeating: 0, count: src.count)
        src.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<oh {
                    for x in 0..<ow {
                        let sx: Int, sy: Int
                        switch orientation {
                        case 2: (sx, sy) = (width - 1 - x, y)
                        case 3: (sx, sy) = (width - 1 - x, height - 1 - y)
                        case 4: (sx, sy) = (x, height - 1 - y)
                        case 5: (sx, sy) = (y, x)
                        case 6: (sx, sy) = (y, height - 1 - x)
                        case 7: (sx, sy) = (width - 1 - y, height - 1 - x)
                        default: (sx, sy) = (width - 1 - y, x)
                        }
                        let si = (sy * width + sx) * bands, oi = (y * ow + x) * bands
                        for c in 0..<bands { o[oi + c] = s[si + c] }
                    }
                }
            }
        }
        return (out, ow, oh)
    }

    /// Cuts `cw × ch` out of the centre.
    static func centreCrop(_ src: [UInt8], width: Int, height: Int, bands: Int, to cw: Int, _ ch: Int) -> [UInt8] {
        if cw == width, ch == height { return src }
        let left = (width - cw) / 2, top = (height - ch) / 2
        var out = [UInt8]()
        out.reserveCapacity(cw * ch * bands)
        for y in top..<(top + ch) {
            let start = (y * width + left) * bands
            out.append(contentsOf: src[start..<(start + cw * bands)])
        }
        return out
    }
}
