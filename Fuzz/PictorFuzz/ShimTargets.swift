import Foundation
import PictorCore
import PictorVips

/// Targets that call Pictor's own C shims directly, below the Swift checks that normally come
/// first: `CPNGShim`'s inflate and unfilter arithmetic, and `CJPEGShim`'s buffered-image
/// decoder fed in pieces.
enum ShimTargets {
    // MARK: png-shim

    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    static func be32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    /// A PNG chunk: length, type, data, CRC (off by one when `damaged`).
    static func chunk(_ type: String, _ data: [UInt8], damaged: Bool = false) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body) &+ (damaged ? 1 : 0))
    }

    /// A zlib stream of stored (uncompressed) blocks holding `data`: the model knows exactly
    /// what it inflates to. A wrong Adler-32 when `badChecksum`.
    static func storedZlib(_ data: [UInt8], badChecksum: Bool) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var at = 0
        repeat {
            let n = min(65_535, data.count - at)
            out.append(at + n == data.count ? 1 : 0)
            out += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8 & 0xFF)]
            out += data[at..<(at + n)]
            at += n
        } while at < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + be32((b << 16 | a) &+ (badChecksum ? 1 : 0))
    }

    /// The reduced images' rows (bytes per row without the filter byte, and rows), as the PNG
    /// specification lays them out: one image, or Adam7's seven passes (empty ones left out).
    static func passes(width: Int, height: Int, bitsPerPixel: Int, interlaced: Bool) -> [(bytes: Int, lines: Int)] {
        let adam7 = interlaced ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)] : [(0, 0, 1, 1)]
        return adam7.compactMap { x0, y0, dx, dy in
            guard width > x0, height > y0 else { return nil }
            let columns = (width - x0 + dx - 1) / dx, lines = (height - y0 + dy - 1) / dy
            return ((columns * bitsPerPixel + 7) / 8, lines)
        }
    }

    /// Undoes the filters of 8-bit rows, byte by byte as the specification says; `nil` at a
    /// filter type over 4.
    static func unfilter(_ filtered: [UInt8], rowBytes: Int, rows: Int, bpp: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: rowBytes * rows)
        for y in 0..<rows {
            let type = filtered[y * (rowBytes + 1)]
            guard type <= 4 else { return nil }
            for x in 0..<rowBytes {
                let raw = filtered[y * (rowBytes + 1) + 1 + x]
                let a = x >= bpp ? Int(out[y * rowBytes + x - bpp]) : 0
                let b = y > 0 ? Int(out[(y - 1) * rowBytes + x]) : 0
                let c = x >= bpp && y > 0 ? Int(out[(y - 1) * rowBytes + x - bpp]) : 0
                let predicted: Int
                switch type {
                case 0: predicted = 0
                case 1: predicted = a
                case 2: predicted = b
                case 3: predicted = (a + b) / 2
                default:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predicted = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                }
                out[y * rowBytes + x] = UInt8(truncatingIfNeeded: Int(raw) + predicted)
            }
        }
        return out
    }

    /// The most filtered bytes a generated image has: 8 kB, so that a stream of four times
    /// that stays quick to build and inflate.
    static let maximumFilteredBytes = 1 << 13

    /// Input: a mode byte (channels, interlacing, bit depth, what the stream is), width (UInt16
    /// LE), height, a length adjustment, a filter and chunking byte, then the bytes the rows
    /// are made of, or (mode 3) the zlib stream itself.
    @Sendable static func pngShim(_ b: UnsafeRawBufferPointer) {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        // Any bytes as a file: the chunk walkers stay inside and answer a known status.
        let asFile = b.starts(with: signature) ? Array(b) : signature + Array(b)
        asFile.withUnsafeBytes { raw in
            let idat = PNGShim.checkIDAT(raw)
            check(idat == .ok || idat == .structure || idat == .crc, "cpng_check_idat answered \(String(describing: idat))")
            _ = PNGShim.hasChunk("acTL", beforeImageDataIn: raw)
        }
        guard b.count >= 6 else { return }
        let mode = b[0]
        let channels = 1 + Int(mode & 3), interlaced = mode & 4 != 0
        let depth = [8, 1, 2, 4, 16, 8, 8, 8][Int(mode >> 3 & 7)]
        let stream = mode >> 6   // 0 stored, 1 stored with a bad Adler-32, 2 a bad CRC, 3 the input's own stream
        var width = 1 + (Int(b[1]) | Int(b[2]) << 8), height = 1 + Int(b[3])
        let bitsPerPixel = channels * depth
        func filteredLength() -> Int {
            passes(width: width, height: height, bitsPerPixel: bitsPerPixel, interlaced: interlaced).reduce(0) { $0 + ($1.bytes + 1) * $1.lines }
        }
        if filteredLength() > maximumFilteredBytes { height = 1 }
        if filteredLength() > maximumFilteredBytes { width = 1 + width % 1024 }
        let expected = filteredLength()
        let adjust = Int(b[4]), rowsByte = b[5]
        let content = Array(b[6...])

        // The filtered rows: a filter type per row (any byte when asked, else 0...4), then the
        // content bytes over and over; cut short, lengthened, or four times the image and more.
        let layout = passes(width: width, height: height, bitsPerPixel: bitsPerPixel, interlaced: interlaced)
        var filtered = [UInt8]()
        filtered.reserveCapacity(expected)
        var k = 0
        func next() -> UInt8 {
            defer { k += 1 }
            return content.isEmpty ? 0 : content[k % content.count]
        }
        for pass in layout {
            for _ in 0..<pass.lines {
                filtered.append(rowsByte & 1 != 0 ? next() : next() % 5)
                for _ in 0..<pass.bytes { filtered.append(next()) }
            }
        }
        var data = filtered
        switch adjust {
        case 1..<64: data.removeLast(min(adjust, data.count))
        case 64..<128: for _ in 0..<(adjust - 63) { data.append(next()) }
        case 128..<192: for _ in 0..<(3 * expected + adjust - 128) { data.append(next()) }
        default: break
        }
        let zlib = stream == 3 ? content : storedZlib(data, badChecksum: stream == 1)
        // One IDAT chunk or several, after IHDR and before IEND.
        let pieces = 1 + Int(rowsByte >> 1) % 4
        var png = signature + chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [UInt8(depth), 0, 0, 0, interlaced ? 1 : 0])
        for i in 0..<pieces {
            let start = zlib.count * i / pieces, end = zlib.count * (i + 1) / pieces
            png += chunk("IDAT", Array(zlib[start..<end]), damaged: stream == 2 && i == pieces - 1)
        }
        png += chunk("IEND", [])

        // What the shim must answer for a stream the model made.
        let model: PNGShim.Status? = {
            if stream == 2 { return .crc }
            if stream == 3 { return nil }
            if data.count > 4 * expected { return .inflate }   // the check reads what it can: ok or filter
            if stream == 1 { return .zlib }
            if data.count < expected { return .short }
            var at = 0
            for pass in layout {
                for _ in 0..<pass.lines {
                    if filtered[at] > 4 { return .filter }
                    at += pass.bytes + 1
                }
            }
            return .ok
        }()

        png.withUnsafeBytes { raw in
            let checked = PNGShim.checkImageData(raw, bitsPerPixel: UInt32(bitsPerPixel), width: UInt32(width), height: UInt32(height),
                                                 interlaced: interlaced)
            check(checked != nil, "cpng_check_image_data answered an unknown status")
            if let model {
                if model == .inflate {
                    check(checked == .ok || checked == .filter, "a stream of over four times the image checked \(String(describing: checked))")
                } else {
                    check(checked == model, "cpng_check_image_data answered \(String(describing: checked)), the model \(model) (\(width)×\(height), \(bitsPerPixel) bits, interlaced \(interlaced), \(data.count) of \(expected) bytes)")
                }
            }
            guard depth == 8, !interlaced else { return }
            let count = width * height * channels
            // Exactly the size the header implies: AddressSanitizer sees any write outside.
            let pixels = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
            defer { pixels.deallocate() }
            let decoded = PNGShim.decode8Bit(raw, width: UInt32(width), height: UInt32(height), channels: channels, into: pixels)
            check(decoded != nil, "cpng_decode_8bit answered an unknown status")
            if let model {
                check(decoded == model, "cpng_decode_8bit answered \(String(describing: decoded)), the model \(model) (\(width)×\(height)×\(channels), \(data.count) of \(expected) bytes)")
                if model == .ok {
                    let rows = unfilter(filtered, rowBytes: width * channels, rows: height, bpp: channels)
                    check(rows.map { Array(pixels) == $0 } == true, "the pixels differ from the specification's unfiltering (\(width)×\(height)×\(channels))")
                }
            } else if decoded == .inflate {
                check(checked == .ok || checked == .filter, "decode: too long; check: \(String(describing: checked))")
            } else {
                check(decoded == checked, "decode answered \(String(describing: decoded)), the check \(String(describing: checked))")
            }
        }
    }

    // MARK: jpeg-preview

    /// What feeding `jpeg` in pieces gave: the previews, the last error, and the decoder.
    struct Feed {
        var previews: [Image] = []
        var error: (any Error)?
        var decoder: JPEGPreviews
    }

    /// Feeds `jpeg` in pieces of the lengths `pieces` gives (the rest in one piece when it
    /// returns nil), checking every preview; stops at the first error, as the pipeline does.
    static func feed(_ jpeg: Data, options: ImageDecodingOptions, kinds: ImagePreviewKinds, pieces: () -> Int?) -> Feed? {
        guard let decoder = JPEGPreviews(options: options, kinds: kinds) else { return nil }
        var feed = Feed(decoder: decoder)
        var start = 0
        while start < jpeg.count {
            let end = min(jpeg.count, start + (pieces() ?? jpeg.count))
            do {
                if let preview = try decoder.preview(appending: jpeg.subdata(in: start..<end)) {
                    checkPreview(preview, decoder: decoder, options: options)
                    feed.previews.append(preview)
                }
            } catch let error as ImageDecodingError {
                check(error.kind == .corrupt || error.kind == .unsupportedVariant, "preview error \(error)")
                feed.error = error
                return feed
            } catch {
                check(false, "preview error of another type: \(error)")
            }
            start = end
        }
        return feed
    }

    static func checkPreview(_ preview: Image, decoder: JPEGPreviews, options: ImageDecodingOptions) {
        guard let declared = decoder.declaredSize, let rendered = decoder.renderedSize else {
            check(false, "a preview before the header or a render")
            return
        }
        check(declared.width * declared.height <= options.maximumPixelCount,
              "a preview of \(declared.width)×\(declared.height), over the limit of \(options.maximumPixelCount) pixels")
        // The shim's output (a progressive file's scans so far, or a baseline file's rows so far
        // over grey): the declared size at a DCT scale of 1/1, 1/2, 1/4 or 1/8, grey or RGB.
        check([1, 2, 4, 8].contains { d in
            rendered.width == (declared.width + d - 1) / d && rendered.height == (declared.height + d - 1) / d
        }, "rendered \(rendered.width)×\(rendered.height) is no DCT scale of \(declared.width)×\(declared.height)")
        check(rendered.channels == 1 || rendered.channels == 3, "\(rendered.channels) channels")
        // The preview: no larger than the image (as oriented), except that a stretch is always
        // the box (libvips' `force`, which the final decode follows too); exactly its pixels.
        let swaps = decoder.orientation >= 5
        let (width, height) = swaps ? (declared.height, declared.width) : (declared.width, declared.height)
        if let box = options.thumbnail, box.contentMode == .stretch, let boxHeight = box.height {
            check(preview.width == box.width && preview.height == boxHeight, "a stretched preview of \(preview.width)×\(preview.height)")
        } else {
            check(preview.width >= 1 && preview.height >= 1 && preview.width <= width && preview.height <= height,
                  "preview \(preview.width)×\(preview.height) of a \(width)×\(height) image")
        }
        let bands = preview.layout == .gray ? 1 : preview.layout == .rgb ? 3 : 0
        check(bands == rendered.channels, "layout \(preview.layout) from \(rendered.channels) channels")
        check(preview.frames.count == 1 && preview.frames[0].pixels.count == preview.width * preview.height * bands,
              "a preview's pixels are not width × height × channels")
    }

    /// Input: a byte that seeds where the file is cut, a byte of options (thumbnail, pixel
    /// limit, kinds of previews), then the JPEG.
    @Sendable static func jpegPreview(_ b: UnsafeRawBufferPointer) {
        guard b.count >= 2 else { return }
        var options = ImageDecodingOptions()
        let choice = b[1]
        options.thumbnail = [nil, ThumbnailOptions(width: 16), ThumbnailOptions(width: 40, height: 30, contentMode: .aspectFill),
                             ThumbnailOptions(width: 100, height: 20, contentMode: .stretch)][Int(choice & 3)]
        // At most a megapixel: libjpeg holds every coefficient of the image in buffered-image
        // mode, and the limit is what is checked, not how much memory a larger one takes.
        options.maximumPixelCount = [1 << 20, 4_096, 65_536, 1][Int(choice >> 2 & 3)]
        let kinds: ImagePreviewKinds = [[.progressive], [.progressive, .incremental], [.incremental], [.progressive, .incremental]][Int(choice >> 4 & 3)]
        let jpeg = Data(b[2...])
        // A small generator, so that the same input always cuts at the same places.
        var state = UInt64(b[0]) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        let longest = [1, 7, 64, 1_024][Int(b[0] >> 6)]
        guard let split = feed(jpeg, options: options, kinds: kinds, pieces: {
                  state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                  return 1 + Int(state >> 33) % longest
              }),
              let whole = feed(jpeg, options: options, kinds: kinds, pieces: { nil }) else {
            check(false, "no preview decoder")
            return
        }
        // libjpeg suspends and resumes where the bytes ran out: how the file arrives changes
        // nothing in the end. The same error, or the same last preview: its size always, its
        // pixels when the file ends with EOI (then every scan that started is complete when the
        // last preview is rendered; a file cut inside a scan has that scan's coefficients in
        // the buffer when rendered whole, and not when its last preview came earlier).
        check((split.error == nil) == (whole.error == nil),
              "in pieces: \(split.error.map { "\($0)" } ?? "no error"); whole: \(whole.error.map { "\($0)" } ?? "no error")")
        if split.error == nil, whole.error == nil {
            check(split.previews.count >= whole.previews.count, "fewer previews in pieces than whole")
            if let last = split.previews.last, let one = whole.previews.last {
                check(last.width == one.width && last.height == one.height && last.layout == one.layout,
                      "the last preview's size differs between the file in pieces and whole")
                check(!jpeg.suffix(2).elementsEqual([0xFF, 0xD9]) || last.pixels == one.pixels,
                      "the last preview of a whole file differs between the file in pieces and whole")
            } else {
                check(split.previews.isEmpty == whole.previews.isEmpty, "previews in pieces but none whole, or the other way")
            }
        }
    }
}
