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
        // Horizontal pass into floats, all bands of a pixel per tap; then a vertical pass by rows.
        var mid = [Float](repeating: 0, count: outWidth * height * bands)
        src.withUnsafeBufferPointer { s in
            mid.withUnsafeMutableBufferPointer { m in
                h.start.withUnsafeBufferPointer { starts in
                h.count.withUnsafeBufferPointer { counts in
                h.weights.withUnsafeBufferPointer { weights in
                    let s = s.baseAddress!, m = m.baseAddress!, weights = weights.baseAddress!
                    for y in 0..<height {
                        let row = s + y * width * bands
                        var out = m + y * outWidth * bands
                        for x in 0..<outWidth {
                            let w = weights + x * h.stride
                            var p = row + starts[x] * bands
                            let n = counts[x]
                            switch bands {
                            case 3:
                                var a0: Float = 0, a1: Float = 0, a2: Float = 0
                                for k in 0..<n {
                                    let wk = w[k]
                                    a0 += Float(p[0]) * wk; a1 += Float(p[1]) * wk; a2 += Float(p[2]) * wk
                                    p += 3
                                }
                                out[0] = a0; out[1] = a1; out[2] = a2
                            case 1:
                                var a0: Float = 0
                                for k in 0..<n { a0 += Float(p[k]) * w[k] }
                                out[0] = a0
                            default:
                                for c in 0..<bands {
                                    var a: Float = 0
                                    for k in 0..<n { a += Float(p[k * bands + c]) * w[k] }
                                    out[c] = a
                                }
                            }
                            out += bands
                        }
                    }
                }}}
            }
        }
        let rowLength = outWidth * bands
        var out = [UInt8](repeating: 0, count: rowLength * outHeight)
        var acc = [Float](repeating: 0, count: rowLength)
        mid.withUnsafeBufferPointer { m in
            out.withUnsafeMutableBufferPointer { o in
                acc.withUnsafeMutableBufferPointer { a in
                    let m = m.baseAddress!, o = o.baseAddress!, a = a.baseAddress!
                    for y in 0..<outHeight {
                        let first = v.start[y], n = v.count[y], wBase = y * v.stride
                        a.update(repeating: 0, count: rowLength)
                        for k in 0..<n {
                            let w = v.weights[wBase + k], row = m + (first + k) * rowLength
                            for i in 0..<rowLength { a[i] += row[i] * w }
                        }
                        let outRow = o + y * rowLength
                        for i in 0..<rowLength { outRow[i] = UInt8(min(255, max(0, a[i] + 0.5))) }
                    }
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
