import Foundation

/// Small pixel operations for the TurboJPEG and PNG fast paths, on tightly packed 8-bit buffers:
/// a separable triangle-filter resample (alpha premultiplied for 2 and 4 bands, as libvips
/// does), EXIF orientation and a centre crop, fused into one pass
/// (``thumbnail(_:width:height:bands:resizedTo:_:orientation:croppedTo:_:)``) that writes each
/// output pixel once, straight into the image's buffer.
///
/// The resample runs the vertical pass first, one output row at a time, into a scratch row of
/// floats that stays in L1; the horizontal pass reads that row and writes bytes at the pixel's
/// oriented, cropped place. Only the part of the resized image that survives the crop is
/// computed. Inner loops run on unsafe pointers so that release builds vectorise them (the
/// vertical pass, 4 floats per SSE2 instruction) and a 3-band pixel is one `SIMD4<Float>`; 2- and
/// 4-band pixels (alpha) take premultiplying passes of their own.
enum PixelResampler {
    /// Filter taps for one axis: for output `i`, input pixels `start[i] ..< start[i] + count[i]`
    /// with weights `weights[i * stride ..< i * stride + count[i]]`, summing to 1 (edge taps
    /// whose weight is 0 are left out).
    struct Taps: ~Copyable {
        let start: UnsafeMutablePointer<Int>, count: UnsafeMutablePointer<Int>
        let weights: UnsafeMutablePointer<Float>
        let stride: Int

        init(from input: Int, to output: Int) {
            let scale = Double(input) / Double(output)
            let support = max(1, scale)
            let stride = input == output ? 1 : Int((support * 2).rounded(.up)) + 2
            self.stride = stride
            start = .allocate(capacity: output)
            count = .allocate(capacity: output)
            weights = .allocate(capacity: output * stride)
            weights.initialize(repeating: 0, count: output * stride)
            for i in 0..<output {
                let w = weights + i * stride
                if input == output {
                    start[i] = i; count[i] = 1; w[0] = 1
                    continue
                }
                let centre = (Double(i) + 0.5) * scale
                var lo = max(0, Int((centre - support).rounded(.down)))
                var hi = min(input, Int((centre + support).rounded(.up)))
                func weight(_ j: Int) -> Double { max(0, 1 - abs(Double(j) + 0.5 - centre) / support) }
                while lo < hi - 1, weight(lo) == 0 { lo += 1 }
                while hi - 1 > lo, weight(hi - 1) == 0 { hi -= 1 }
                let n = min(hi - lo, stride)
                var sum = 0.0
                for k in 0..<n { sum += weight(lo + k) }
                start[i] = lo
                if sum == 0 {
                    count[i] = 1; w[0] = 1
                } else {
                    count[i] = n
                    for k in 0..<n { w[k] = Float(weight(lo + k) / sum) }
                }
            }
        }

        deinit {
            start.deallocate(); count.deallocate(); weights.deallocate()
        }
    }

    /// Where the pixels of the resized image (in the file's stored orientation) land in the
    /// output: pixel `(sx, sy)` for `sx` in `xs`, `sy` in `ys` (the part that survives the crop)
    /// goes to byte `origin + sx * dx + sy * dy`. Orientation and crop are an affine map.
    struct Placement: Equatable {
        var origin: Int, dx: Int, dy: Int
        var xs: Range<Int>, ys: Range<Int>

        /// `width × height`: the resized image in stored orientation; EXIF `orientation` (1...8,
        /// anything else is 1); `cw × ch` cut from the centre of the oriented image.
        init(width: Int, height: Int, bands: Int, orientation: Int, croppedTo cw: Int, _ ch: Int) {
            let o = (1...8).contains(orientation) ? orientation : 1
            let swaps = o >= 5
            let ow = swaps ? height : width, oh = swaps ? width : height
            precondition(cw >= 1 && ch >= 1 && cw <= ow && ch <= oh, "crop \(cw)x\(ch) outside \(ow)x\(oh)")
            let left = (ow - cw) / 2, top = (oh - ch) / 2
            // Oriented (x, y) of stored (sx, sy): x = x0 + xx * sx + xy * sy, y = y0 + yx * sx + yy * sy.
            let (x0, xx, xy, y0, yx, yy): (Int, Int, Int, Int, Int, Int)
            switch o {
            case 2: (x0, xx, xy, y0, yx, yy) = (width - 1, -1, 0, 0, 0, 1)
            case 3: (x0, xx, xy, y0, yx, yy) = (width - 1, -1, 0, height - 1, 0, -1)
            case 4: (x0, xx, xy, y0, yx, yy) = (0, 1, 0, height - 1, 0, -1)
            case 5: (x0, xx, xy, y0, yx, yy) = (0, 0, 1, 0, 1, 0)
            case 6: (x0, xx, xy, y0, yx, yy) = (height - 1, 0, -1, 0, 1, 0)
            case 7: (x0, xx, xy, y0, yx, yy) = (height - 1, 0, -1, width - 1, -1, 0)
            case 8: (x0, xx, xy, y0, yx, yy) = (0, 0, 1, width - 1, -1, 0)
            default: (x0, xx, xy, y0, yx, yy) = (0, 1, 0, 0, 0, 1)
            }
            // Output pixel index (y - top) * cw + (x - left), in bytes.
            origin = ((y0 - top) * cw + (x0 - left)) * bands
            dx = (yx * cw + xx) * bands
            dy = (yy * cw + xy) * bands
            // The map is its own kind of inverse on the axes: the crop box's corners give the
            // stored box. Solve x, y for sx, sy (each of sx, sy feeds exactly one of x, y).
            func stored(_ x: Int, _ y: Int) -> (Int, Int) {
                let sx = xx != 0 ? (x - x0) * xx : (y - y0) * yx
                let sy = yy != 0 ? (y - y0) * yy : (x - x0) * xy
                return (sx, sy)
            }
            let a = stored(left, top), b = stored(left + cw - 1, top + ch - 1)
            xs = min(a.0, b.0)..<(max(a.0, b.0) + 1)
            ys = min(a.1, b.1)..<(max(a.1, b.1) + 1)
        }
    }

    // MARK: Fused entry points

    /// Resamples `src` (`width × height × bands`, packed) to `rw × rh`, applies EXIF
    /// `orientation` and cuts `cw × ch` (in oriented pixels) out of the centre, as a new buffer
    /// of `cw × ch × bands` bytes, written once (allocated uninitialised).
    static func thumbnail(_ src: UnsafePointer<UInt8>, width: Int, height: Int, bands: Int,
                          resizedTo rw: Int, _ rh: Int, orientation: Int, croppedTo cw: Int, _ ch: Int) -> Data {
        let size = cw * ch * bands
        guard let memory = malloc(max(1, size)) else { fatalError("PixelResampler: out of memory (\(size) bytes)") }
        let out = memory.bindMemory(to: UInt8.self, capacity: size)
        render(src, width: width, height: height, bands: bands, resizedTo: rw, rh, orientation: orientation,
               croppedTo: cw, ch, into: out)
        return Data(bytesNoCopy: memory, count: size, deallocator: .free)
    }

    /// The work of ``thumbnail(_:width:height:bands:resizedTo:_:orientation:croppedTo:_:)``, into
    /// `out` (`cw × ch × bands` bytes, every one written).
    static func render(_ src: UnsafePointer<UInt8>, width: Int, height: Int, bands: Int,
                       resizedTo rw: Int, _ rh: Int, orientation: Int, croppedTo cw: Int, _ ch: Int,
                       into out: UnsafeMutablePointer<UInt8>) {
        precondition(width >= 1 && height >= 1 && rw >= 1 && rh >= 1 && bands >= 1)
        let place = Placement(width: rw, height: rh, bands: bands, orientation: orientation, croppedTo: cw, ch)
        if width == rw, height == rh {
            copy(src, width: width, bands: bands, place: place, into: out)
            return
        }
        let h = Taps(from: width, to: rw), v = Taps(from: height, to: rh)
        // Source columns the kept output columns read.
        let firstColumn = h.start[place.xs.lowerBound]
        var endColumn = firstColumn
        for x in place.xs { endColumn = max(endColumn, h.start[x] + h.count[x]) }
        let length = (endColumn - firstColumn) * bands
        // 4 floats of padding: a 3-band pixel is read as a SIMD4.
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: length + 4)
        defer { scratch.deallocate() }
        (scratch + length).initialize(repeating: 0, count: 4)
        let rowBytes = width * bands
        let columns = src + firstColumn * bands
        if bands == 2 || bands == 4 {
            // The last band is alpha: colour is filtered premultiplied by it and divided by the
            // filtered alpha after, as libvips does, so transparent pixels' colour never bleeds
            // into visible ones.
            for y in place.ys {
                verticalPremultiplied(columns + v.start[y] * rowBytes, rowBytes: rowBytes, taps: v.count[y],
                                      weights: v.weights + y * v.stride, length: length, bands: bands, into: scratch)
                horizontalUnpremultiplied(scratch, bands: bands, taps: h, firstColumn: firstColumn, xs: place.xs,
                                          into: out + place.origin + y * place.dy, dx: place.dx)
            }
            return
        }
        for y in place.ys {
            vertical(columns + v.start[y] * rowBytes, rowBytes: rowBytes, taps: v.count[y],
                     weights: v.weights + y * v.stride, length: length, into: scratch)
            let row = out + place.origin + y * place.dy
            switch bands {
            case 3: horizontal3(scratch, taps: h, firstColumn: firstColumn, xs: place.xs, into: row, dx: place.dx)
            case 1: horizontal1(scratch, taps: h, firstColumn: firstColumn, xs: place.xs, into: row, dx: place.dx)
            default: horizontal(scratch, bands: bands, taps: h, firstColumn: firstColumn, xs: place.xs, into: row, dx: place.dx)
            }
        }
    }

    // MARK: Passes

    /// `scratch[i] = Σₖ weights[k] · rows[k · rowBytes + i]` for `i < length`: up to four source
    /// rows per sweep over the scratch row, each loop plain enough for the vectoriser.
    @inline(__always)
    private static func vertical(_ rows: UnsafePointer<UInt8>, rowBytes: Int, taps n: Int, weights w: UnsafePointer<Float>,
                                 length: Int, into s: UnsafeMutablePointer<Float>) {
        var k = 0
        while k < n {
            let a = rows + k * rowBytes, b = a + rowBytes, c = b + rowBytes, d = c + rowBytes
            let first = k == 0
            switch n - k {
            case 1:
                let wa = w[k]
                if first { for i in 0..<length { s[i] = Float(a[i]) * wa } }
                else { for i in 0..<length { s[i] += Float(a[i]) * wa } }
                k += 1
            case 2:
                let wa = w[k], wb = w[k + 1]
                if first { for i in 0..<length { s[i] = Float(a[i]) * wa + Float(b[i]) * wb } }
                else { for i in 0..<length { s[i] += Float(a[i]) * wa + Float(b[i]) * wb } }
                k += 2
            case 3:
                let wa = w[k], wb = w[k + 1], wc = w[k + 2]
                if first { for i in 0..<length { s[i] = Float(a[i]) * wa + Float(b[i]) * wb + Float(c[i]) * wc } }
                else { for i in 0..<length { s[i] += Float(a[i]) * wa + Float(b[i]) * wb + Float(c[i]) * wc } }
                k += 3
            default:
                let wa = w[k], wb = w[k + 1], wc = w[k + 2], wd = w[k + 3]
                if first {
                    for i in 0..<length { s[i] = (Float(a[i]) * wa + Float(b[i]) * wb) + (Float(c[i]) * wc + Float(d[i]) * wd) }
                } else {
                    for i in 0..<length { s[i] += (Float(a[i]) * wa + Float(b[i]) * wb) + (Float(c[i]) * wc + Float(d[i]) * wd) }
                }
                k += 4
            }
        }
    }

    /// The vertical pass of an image with alpha (2 or 4 bands): colour × alpha / 255 and alpha.
    private static func verticalPremultiplied(_ rows: UnsafePointer<UInt8>, rowBytes: Int, taps n: Int, weights w: UnsafePointer<Float>,
                                              length: Int, bands: Int, into s: UnsafeMutablePointer<Float>) {
        s.update(repeating: 0, count: length)
        let a = bands &- 1
        for k in 0..<n {
            let row = rows + k &* rowBytes, wk = w[k]
            var i = 0
            while i < length {
                let alpha = Float(row[i &+ a]) * wk, scale = alpha * (1 / 255)
                for c in 0..<a { s[i &+ c] += Float(row[i &+ c]) * scale }
                s[i &+ a] += alpha
                i &+= bands
            }
        }
    }

    /// The horizontal pass of an image with alpha: filtered, then colour divided by the filtered
    /// alpha (0 where nothing shows).
    private static func horizontalUnpremultiplied(_ s: UnsafePointer<Float>, bands: Int, taps h: borrowing Taps, firstColumn: Int,
                                                  xs: Range<Int>, into row: UnsafeMutablePointer<UInt8>, dx: Int) {
        let base = s - firstColumn &* bands, a = bands &- 1
        var d = row + xs.lowerBound &* dx
        for x in xs {
            let n = h.count[x], w = h.weights + x &* h.stride, p = base + h.start[x] &* bands
            var acc = SIMD4<Float>()
            for k in 0..<n {
                for c in 0..<bands { acc[c] += p[k &* bands &+ c] * w[k] }
            }
            let alpha = min(255, max(0, acc[a]))
            for c in 0..<a { d[c] = alpha > 0 ? clampedByte(acc[c] * 255 / alpha) : 0 }
            d[a] = clampedByte(alpha)
            d += dx
        }
    }

    @inline(__always)
    private static func clampedByte(_ v: Float) -> UInt8 { UInt8(min(255, max(0, v)) + 0.5) }

    /// `v` rounded half up to bytes, one per lane's low byte, with no conversion instruction or
    /// overflow check: adding 1.5 · 2²³ leaves `v` rounded to the nearest integer in the low
    /// mantissa bits. The 2⁻¹² added first (4 ulp at 255) makes exact halves, common in a 2× reduction (weights
    /// in eighths), round up as `Int(v + 0.5)` does, not to even. Needs `0 ≤ v < 255.5`, which a
    /// filter with non-negative weights summing to 1 keeps, as the triangle filter's are: a sum of
    /// bytes times such weights is within 0.001 of 0 ... 255.
    @inline(__always)
    private static func rounded(_ v: SIMD4<Float>) -> SIMD4<UInt32> {
        unsafeBitCast((v + 1.0 / 4096) + 12_582_912, to: SIMD4<UInt32>.self)
    }

    @inline(__always)
    private static func byte(_ v: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: ((v + 1.0 / 4096) + 12_582_912).bitPattern)
    }

    // The horizontal passes: output pixel `x` of `xs` from the scratch row (which starts at source
    // column `firstColumn`) to `row + x · dx`. Wrapping arithmetic: no overflow checks in the loops.

    private static func horizontal3(_ s: UnsafePointer<Float>, taps h: borrowing Taps, firstColumn: Int, xs: Range<Int>,
                                    into row: UnsafeMutablePointer<UInt8>, dx: Int) {
        let base = UnsafeRawPointer(s - firstColumn &* 3), pixel = 3 &* MemoryLayout<Float>.stride
        var d = row + xs.lowerBound &* dx
        for x in xs {
            var p = base + h.start[x] &* pixel, w = UnsafePointer(h.weights + x &* h.stride)
            var acc = SIMD4<Float>()
            for _ in 0..<h.count[x] {
                acc += p.loadUnaligned(as: SIMD4<Float>.self) * w.pointee
                p += pixel; w += 1
            }
            let v = rounded(acc)
            d[0] = UInt8(truncatingIfNeeded: v[0]); d[1] = UInt8(truncatingIfNeeded: v[1]); d[2] = UInt8(truncatingIfNeeded: v[2])
            d += dx
        }
    }

    private static func horizontal1(_ s: UnsafePointer<Float>, taps h: borrowing Taps, firstColumn: Int, xs: Range<Int>,
                                    into row: UnsafeMutablePointer<UInt8>, dx: Int) {
        let base = s - firstColumn
        var d = row + xs.lowerBound &* dx
        for x in xs {
            let p = base + h.start[x], w = h.weights + x &* h.stride
            var acc: Float = 0
            for k in 0..<h.count[x] { acc += p[k] * w[k] }
            d.pointee = byte(acc)
            d += dx
        }
    }

    /// Any number of bands, one at a time.
    private static func horizontal(_ s: UnsafePointer<Float>, bands: Int, taps h: borrowing Taps, firstColumn: Int, xs: Range<Int>,
                                   into row: UnsafeMutablePointer<UInt8>, dx: Int) {
        let base = s - firstColumn &* bands
        var d = row + xs.lowerBound &* dx
        for x in xs {
            let n = h.count[x], w = h.weights + x &* h.stride, p = base + h.start[x] &* bands
            for c in 0..<bands {
                var acc: Float = 0
                for k in 0..<n { acc += p[k &* bands &+ c] * w[k] }
                d[c] = byte(acc)
            }
            d += dx
        }
    }

    /// No resample: orientation and crop only, a pixel copy.
    private static func copy(_ src: UnsafePointer<UInt8>, width: Int, bands: Int, place: Placement, into out: UnsafeMutablePointer<UInt8>) {
        let rowBytes = width * bands, x0 = place.xs.lowerBound, n = place.xs.count
        for y in place.ys {
            var s = src + y * rowBytes + x0 * bands
            var d = out + place.origin + y * place.dy + x0 * place.dx
            if place.dx == bands {
                d.update(from: s, count: n * bands)
                continue
            }
            switch bands {
            case 3:
                for _ in 0..<n { d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; s += 3; d += place.dx }
            case 1:
                for _ in 0..<n { d[0] = s[0]; s += 1; d += place.dx }
            default:
                for _ in 0..<n { d.update(from: s, count: bands); s += bands; d += place.dx }
            }
        }
    }

    // MARK: Separate steps, on arrays

    /// Resamples `src` (`width × height × bands`) to `outWidth × outHeight`.
    static func resample(_ src: [UInt8], width: Int, height: Int, bands: Int, to outWidth: Int, _ outHeight: Int) -> [UInt8] {
        if width == outWidth, height == outHeight { return src }
        return transformed(src, width: width, height: height, bands: bands, resizedTo: outWidth, outHeight,
                           orientation: 1, croppedTo: outWidth, outHeight)
    }

    /// Applies EXIF `orientation` (1...8); returns the pixels and the displayed size.
    static func orient(_ src: [UInt8], width: Int, height: Int, bands: Int, orientation: Int) -> ([UInt8], Int, Int) {
        guard (2...8).contains(orientation) else { return (src, width, height) }
        let ow = orientation >= 5 ? height : width, oh = orientation >= 5 ? width : height
        let out = transformed(src, width: width, height: height, bands: bands, resizedTo: width, height,
                              orientation: orientation, croppedTo: ow, oh)
        return (out, ow, oh)
    }

    /// Cuts `cw × ch` out of the centre.
    static func centreCrop(_ src: [UInt8], width: Int, height: Int, bands: Int, to cw: Int, _ ch: Int) -> [UInt8] {
        if cw == width, ch == height { return src }
        return transformed(src, width: width, height: height, bands: bands, resizedTo: width, height,
                           orientation: 1, croppedTo: cw, ch)
    }

    private static func transformed(_ src: [UInt8], width: Int, height: Int, bands: Int, resizedTo rw: Int, _ rh: Int,
                                    orientation: Int, croppedTo cw: Int, _ ch: Int) -> [UInt8] {
        precondition(src.count >= width * height * bands)
        return [UInt8](unsafeUninitializedCapacity: cw * ch * bands) { out, initialised in
            src.withUnsafeBufferPointer { s in
                render(s.baseAddress!, width: width, height: height, bands: bands, resizedTo: rw, rh,
                       orientation: orientation, croppedTo: cw, ch, into: out.baseAddress!)
            }
            initialised = cw * ch * bands
        }
    }
}
