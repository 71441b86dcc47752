import Foundation

/// Small pixel operations for the TurboJPEG and PNG fast paths, on tightly packed 8-bit buffers:
/// a separable triangle-filter resample (alpha premultiplied), EXIF orientation and a crop.
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
        return src.withUnsafeBufferPointer { resample($0, width: width, height: height, bands: bands, to: outWidth, outHeight) }
    }

    /// Resamples `src` (`width × height × bands`, 1...4 bands) to `outWidth × outHeight`. With 2
    /// or 4 bands the last is alpha: colour is premultiplied by it before filtering and divided
    /// by the filtered alpha after (0 where that is 0), as libvips does, so the colour of
    /// transparent pixels never bleeds into visible ones.
    static func resample(_ src: UnsafeBufferPointer<UInt8>, width: Int, height: Int, bands: Int, to outWidth: Int, _ outHeight: Int) -> [UInt8] {
        if width == outWidth, height == outHeight { return Array(src) }
        let h = Taps(from: width, to: outWidth), v = Taps(from: height, to: outHeight)
        let hasAlpha = bands == 2 || bands == 4
        // Horizontal pass into floats, all bands of a pixel per tap; then a vertical pass by
        // rows. Every element of `mid` and `out` is written, so neither is cleared first.
        let midCount = outWidth * height * bands
        let mid = UnsafeMutablePointer<Float>.allocate(capacity: midCount)
        defer { mid.deallocate() }
        h.start.withUnsafeBufferPointer { starts in
        h.count.withUnsafeBufferPointer { counts in
        h.weights.withUnsafeBufferPointer { weights in
            let s = src.baseAddress!, weights = weights.baseAddress!
            for y in 0..<height {
                let row = s + y * width * bands
                var out = mid + y * outWidth * bands
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
                    case 4:
                        var a0: Float = 0, a1: Float = 0, a2: Float = 0, a3: Float = 0
                        for k in 0..<n {
                            let alpha = Float(p[3]) * w[k], wk = alpha * (1 / 255)
                            a0 += Float(p[0]) * wk; a1 += Float(p[1]) * wk; a2 += Float(p[2]) * wk; a3 += alpha
                            p += 4
                        }
                        out[0] = a0; out[1] = a1; out[2] = a2; out[3] = a3
                    case 2:
                        var a0: Float = 0, a1: Float = 0
                        for k in 0..<n {
                            let alpha = Float(p[1]) * w[k]
                            a0 += Float(p[0]) * alpha * (1 / 255); a1 += alpha
                            p += 2
                        }
                        out[0] = a0; out[1] = a1
                    default:
                        var a0: Float = 0
                        for k in 0..<n { a0 += Float(p[k]) * w[k] }
                        out[0] = a0
                    }
                    out += bands
                }
            }
        }}}
        let rowLength = outWidth * bands
        let acc = UnsafeMutablePointer<Float>.allocate(capacity: rowLength)
        defer { acc.deallocate() }
        return [UInt8](unsafeUninitializedCapacity: rowLength * outHeight) { o, initialized in
            let o = o.baseAddress!
            for y in 0..<outHeight {
                let first = v.start[y], n = v.count[y], wBase = y * v.stride
                acc.update(repeating: 0, count: rowLength)
                for k in 0..<n {
                    let w = v.weights[wBase + k], row = mid + (first + k) * rowLength
                    for i in 0..<rowLength { acc[i] += row[i] * w }
                }
                let outRow = o + y * rowLength
                if hasAlpha {
                    var i = 0
                    while i < rowLength {
                        let alpha = min(255, max(0, acc[i + bands - 1]))
                        // Back from premultiplied: colour × 255 / alpha (0 where nothing shows).
                        let scale: Float = alpha > 0 ? 255 / alpha : 0
                        for c in 0..<(bands - 1) { outRow[i + c] = UInt8(min(255, max(0, acc[i + c] * scale + 0.5))) }
                        outRow[i + bands - 1] = UInt8(alpha + 0.5)
                        i += bands
                    }
                } else {
                    for i in 0..<rowLength { outRow[i] = UInt8(min(255, max(0, acc[i] + 0.5))) }
                }
            }
            initialized = rowLength * outHeight
        }
    }

    /// Applies EXIF `orientation` (1...8); returns the pixels and the displayed size.
    static func orient(_ src: [UInt8], width: Int, height: Int, bands: Int, orientation: Int) -> ([UInt8], Int, Int) {
        guard (2...8).contains(orientation) else { return (src, width, height) }
        let swaps = orientation >= 5
        let ow = swaps ? height : width, oh = swaps ? width : height
        // Every pixel of the result is written: no clearing first.
        let out = [UInt8](unsafeUninitializedCapacity: src.count) { o, initialized in
            src.withUnsafeBufferPointer { s in
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
            initialized = src.count
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
