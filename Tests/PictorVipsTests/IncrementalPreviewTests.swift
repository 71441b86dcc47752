import Foundation
import PictorCore
@testable import PictorVips
import PictorTestSupport
import Testing

/// Incremental previews fed in pieces: a baseline JPEG's rows so far (``JPEGPreviews`` over
/// CJPEGShim's scanline decoding) and a PNG's (``PNGPreviews`` over libpng's progressive reader),
/// an interlaced PNG's Adam7 passes, and the kinds that keep them off.
@Suite struct IncrementalPreviewTests {
    static let both: ImagePreviewKinds = [.progressive, .incremental]

    /// The bytes of rows `rows` of `image`.
    static func rows(_ image: Image, _ rows: Range<Int>) -> [UInt8] {
        let stride = image.width * image.layout.bands
        return [UInt8](image.pixels[(rows.lowerBound * stride)..<(rows.upperBound * stride)])
    }

    /// The mean absolute difference of two byte runs of one length.
    static func distance(_ x: [UInt8], _ y: [UInt8]) -> Double {
        precondition(x.count == y.count)
        var sum = 0
        for i in 0..<x.count { sum += abs(Int(x[i]) - Int(y[i])) }
        return Double(sum) / Double(max(1, x.count))
    }

    /// An opaque or translucent texture.
    static func texture(_ width: Int, _ height: Int, layout: Image.PixelLayout = .rgb) -> Image {
        var bytes = [UInt8]()
        for y in 0..<height {
            for x in 0..<width {
                bytes += [UInt8(truncatingIfNeeded: x * 7 + y), UInt8(truncatingIfNeeded: y * 5 + (x ^ y) % 13),
                          UInt8((x / 4 + y / 4) % 2 == 0 ? 200 : 40)]
                if layout == .rgba { bytes.append(UInt8(truncatingIfNeeded: 100 + x + y)) }
            }
        }
        return Image(width: width, height: height, layout: layout, pixels: Data(bytes))
    }

    /// Feeds `data` in `pieces` and returns the previews made after each piece.
    static func previews(_ decoder: any ImagePreviewDecoding, of data: Data, piece: Int) throws -> [Image] {
        var previews: [Image] = []
        for start in stride(from: 0, to: data.count, by: piece) {
            if let preview = try decoder.preview(appending: data.subdata(in: start..<min(data.count, start + piece))) {
                previews.append(preview)
            }
        }
        return previews
    }

    // MARK: Baseline JPEG

    @Test func aBaselineJPEGShowsItsRowsSoFarOverGrey() throws {
        let data = try #require(TurboJPEGEncoder.encode(Self.texture(160, 120), quality: 90))
        let final = try TurboJPEGDecoder().decode(data, options: ImageDecodingOptions())
        let decoder = try #require(TurboJPEGDecoder().makePreviewDecoder(format: .jpeg, options: ImageDecodingOptions(), kinds: Self.both))
        let sos = try #require(ProgressivePreviewTests.scanStarts(data).first)
        let half = sos + (data.count - sos) / 2
        let first = try #require(try decoder.preview(appending: data.prefix(half)))
        #expect(decoder.kind == .incremental)
        #expect(first.width == 160 && first.height == 120 && first.layout == .rgb)
        #expect(Self.distance(Self.rows(first, 0..<16), Self.rows(final, 0..<16)) < 1, "the top rows are the final image's")
        #expect(Self.rows(first, 112..<120).allSatisfy { $0 == 128 }, "rows not received are mid-grey")
        let last = try #require(try decoder.preview(appending: data.subdata(in: half..<data.count)))
        #expect(Self.distance([UInt8](last.pixels), [UInt8](final.pixels)) < 1)
        #expect(try decoder.preview(appending: Data()) == nil, "nothing new")
    }

    @Test func smallPiecesGiveMoreRowsEachTimeAtTheThumbnailsSize() throws {
        let data = try #require(TurboJPEGEncoder.encode(Self.texture(400, 300), quality: 80))
        var options = ImageDecodingOptions()
        options.thumbnail = ThumbnailOptions(width: 90)
        let final = try TurboJPEGDecoder().decode(data, options: options)
        let decoder = try #require(TurboJPEGDecoder().makePreviewDecoder(format: .jpeg, options: options, kinds: Self.both))
        let previews = try Self.previews(decoder, of: data, piece: 997)
        #expect(previews.count >= 3)
        for preview in previews { #expect(preview.width == final.width && preview.height == final.height) }
        let grey = previews.map { $0.pixels.filter { $0 == 128 }.count }
        #expect(grey == grey.sorted(by: >), "fewer grey samples each time: \(grey)")
        // The whole file: every row, the bottom one too (a DCT scale and a resample of their
        // own put the preview a few levels from the final thumbnail; grey would be ~50 away).
        let last = try #require(previews.last)
        #expect(Self.distance([UInt8](last.pixels), [UInt8](final.pixels)) < 6)
        let bottom = (final.height - 1)..<final.height
        #expect(Self.distance(Self.rows(last, bottom), Self.rows(final, bottom)) < 10)
    }

    @Test func aProgressiveJPEGStaysProgressiveWhenBothKindsAreAsked() throws {
        let data = try #require(Self.texture(96, 64).progressiveJPEG())
        let decoder = try #require(TurboJPEGDecoder().makePreviewDecoder(format: .jpeg, options: ImageDecodingOptions(), kinds: Self.both))
        let previews = try Self.previews(decoder, of: data, piece: 200)
        #expect(!previews.isEmpty)
        #expect(decoder.kind == .progressive)
    }

    // MARK: PNG

    @Test func aPNGShowsItsRowsSoFarTransparentBelow() throws {
        let image = Self.texture(64, 48, layout: .rgba)
        let data = try #require(SpngEncoder.encode(image, compression: 6))
        let decoder = try #require(SpngDecoder().makePreviewDecoder(format: .png, options: ImageDecodingOptions(), kinds: Self.both))
        #expect(decoder.kind == .incremental)
        let first = try #require(try decoder.preview(appending: data.prefix(data.count / 2)))
        #expect(first.width == 64 && first.height == 48 && first.layout == .rgba)
        #expect(Self.rows(first, 0..<8) == Self.rows(image, 0..<8))
        let bottom = Self.rows(first, 40..<48)
        #expect(stride(from: 0, to: bottom.count, by: 4).allSatisfy { bottom[$0..<($0 + 4)] == [128, 128, 128, 0] })
        let last = try #require(try decoder.preview(appending: data.subdata(in: (data.count / 2)..<data.count)))
        #expect(last.pixels == image.pixels)
    }

    @Test func aPNGInAnyPiecesEndsAsTheImage() throws {
        let image = Self.texture(33, 21)
        let data = try #require(SpngEncoder.encode(image, compression: 9))
        let decoder = try #require(SpngDecoder().makePreviewDecoder(format: .png, options: ImageDecodingOptions(), kinds: Self.both))
        let previews = try Self.previews(decoder, of: data, piece: 3)
        #expect(previews.count >= 2)
        #expect(previews.last?.pixels == image.pixels)
    }

    /// Found by fuzzing (`png-preview`): checksums are not checked by the preview decoder, yet
    /// a PNG whose Adler-32 is wrong gave no preview at all when its last rows came in the same
    /// piece as the end of the stream (zlib checked it on the way), while in small pieces it
    /// showed the whole image. Both now end as the image.
    @Test func aWrongAdler32DoesNotStopPreviewsInOnePieceOrMany() throws {
        let image = Self.texture(33, 21)
        var bytes = [UInt8](try #require(SpngEncoder.encode(image, compression: 9)))
        let iend = try #require((0..<(bytes.count - 3)).last { bytes[$0..<($0 + 4)].elementsEqual("IEND".utf8) })
        // The Adler-32 is the last 4 bytes of the stream, before the IDAT's CRC and IEND's header.
        bytes[iend - 4 - 4 - 1] ^= 0x01
        for piece in [bytes.count, 3] {
            let decoder = try #require(SpngDecoder().makePreviewDecoder(format: .png, options: ImageDecodingOptions(), kinds: Self.both))
            let previews = try Self.previews(decoder, of: Data(bytes), piece: piece)
            #expect(previews.last?.pixels == image.pixels)
        }
    }

    /// Filter type 0 rows of `image` (RGB), pass by pass (Adam7).
    static func adam7(_ image: Image) -> [UInt8] {
        let x0 = [0, 4, 0, 2, 0, 1, 0], y0 = [0, 0, 4, 0, 2, 0, 1], dx = [8, 8, 4, 4, 2, 2, 1], dy = [8, 8, 8, 4, 4, 2, 2]
        let pixels = [UInt8](image.pixels)
        var out: [UInt8] = []
        for pass in 0..<7 {
            let xs = Array(stride(from: x0[pass], to: image.width, by: dx[pass]))
            guard !xs.isEmpty else { continue }
            for y in stride(from: y0[pass], to: image.height, by: dy[pass]) {
                out.append(0)
                for x in xs { out += pixels[((y * image.width + x) * 3)..<((y * image.width + x) * 3 + 3)] }
            }
        }
        return out
    }

    @Test func anInterlacedPNGShowsACoarseWholeImagePerPass() throws {
        let image = Self.texture(40, 24)
        let data = HostilePNGTests.png(width: 40, height: 24, depth: 8, colourType: 2, interlace: 1, palette: 0,
                                       filtered: Self.adam7(image), splitIDAT: true)
        let final = try ImageDecoderRegistry.vips.decode(data, options: ImageDecodingOptions())
        #expect(final.pixels == image.pixels)
        let decoder = try #require(SpngDecoder().makePreviewDecoder(format: .png, options: ImageDecodingOptions(), kinds: Self.both))
        let previews = try Self.previews(decoder, of: data, piece: 40)
        #expect(previews.count >= 3 && previews.count <= 7)
        let first = [UInt8](try #require(previews.first).pixels)
        // After the first pass, each 8×8 block is its top-left pixel.
        #expect(first[((5 * 40) + 6) * 3..<((5 * 40) + 6) * 3 + 3] == first[0..<3])
        #expect(previews.last?.pixels == image.pixels)
    }

    @Test func aPaletteImageBecomesRGBAsTheFinalDecodeGivesIt() throws {
        let width = 20, height = 10
        var filtered: [UInt8] = []
        for y in 0..<height {
            filtered.append(0)
            for x in stride(from: 0, to: width, by: 2) { filtered.append(UInt8(((x + y) % 16) << 4 | ((x + 1 + y) % 16))) }
        }
        let data = HostilePNGTests.png(width: UInt32(width), height: UInt32(height), depth: 4, colourType: 3, interlace: 0,
                                       palette: 16, filtered: filtered, splitIDAT: false)
        let final = try ImageDecoderRegistry.vips.decode(data, options: ImageDecodingOptions())
        let decoder = try #require(SpngDecoder().makePreviewDecoder(format: .png, options: ImageDecodingOptions(), kinds: Self.both))
        let preview = try #require(try Self.previews(decoder, of: data, piece: data.count).last)
        #expect(preview.layout == final.layout && preview.pixels == final.pixels)
    }

    /// Random filter-0 rows (Adam7 passes when `interlace` is 1) for a `width × height` image of
    /// `colourType` and `depth`.
    static func randomRows(width: Int, height: Int, colourType: UInt8, depth: UInt8, interlace: UInt8) -> [UInt8] {
        let bitsPerPixel = HostilePNGTests.channels(colourType) * Int(depth)
        var generator = SplitMix64(seed: UInt64(colourType) << 8 | UInt64(depth) << 1 | UInt64(interlace))
        var rows: [UInt8] = []
        let x0 = [0, 4, 0, 2, 0, 1, 0], y0 = [0, 0, 4, 0, 2, 0, 1], dx = [8, 8, 4, 4, 2, 2, 1], dy = [8, 8, 8, 4, 4, 2, 2]
        let passes = interlace == 1 ? Array(0..<7) : [-1]
        for pass in passes {
            let w = pass < 0 ? width : (width - x0[pass] + dx[pass] - 1) / dx[pass]
            let h = pass < 0 ? height : (height - y0[pass] + dy[pass] - 1) / dy[pass]
            guard w > 0, h > 0 else { continue }
            for _ in 0..<h {
                rows.append(0)
                rows += (0..<((w * bitsPerPixel + 7) / 8)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
        }
        return rows
    }

    /// 16-bit samples, grey of fewer than 8 bits, grey + alpha and palettes, interlaced or not:
    /// the last preview is the final decode, channel for channel. 16-bit grey is one level off
    /// at most: libvips converts it through its colour pipeline (GREY16 to B_W), which rounds
    /// about one sample in six differently from v / 257.
    @Test(arguments: [(UInt8(6), UInt8(16), UInt8(0)), (2, 16, 1), (0, 2, 0), (0, 1, 1), (0, 16, 0), (4, 16, 1), (4, 8, 1), (3, 8, 1)])
    func theLastPreviewIsTheFinalDecode(colourType: UInt8, depth: UInt8, interlace: UInt8) throws {
        let width = 13, height = 11
        let filtered = Self.randomRows(width: width, height: height, colourType: colourType, depth: depth, interlace: interlace)
        let data = HostilePNGTests.png(width: UInt32(width), height: UInt32(height), depth: depth, colourType: colourType,
                                       interlace: interlace, palette: colourType == 3 ? 256 : 0, filtered: filtered,
                                       splitIDAT: true)
        let final = try ImageDecoderRegistry.vips.decode(data, options: ImageDecodingOptions())
        let decoder = try #require(SpngDecoder().makePreviewDecoder(format: .png, options: ImageDecodingOptions(), kinds: Self.both))
        let preview = try #require(try Self.previews(decoder, of: data, piece: 7).last)
        #expect(preview.width == final.width && preview.height == final.height && preview.layout == final.layout)
        let greySixteen = depth == 16 && (colourType == 0 || colourType == 4)
        let off = zip(preview.pixels, final.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(off <= (greySixteen ? 1 : 0), "samples up to \(off) apart")
    }

    @Test func aPNGWiderThanTheLimitIsRefusedAtItsHeader() throws {
        // One row 20 000 pixels wide: more than the limit on its own (libpng's user limits).
        let data = HostilePNGTests.png(width: 20_000, height: 1, depth: 8, colourType: 0, interlace: 0, palette: 0,
                                       filtered: [UInt8](repeating: 0, count: 20_001), splitIDAT: false)
        var options = ImageDecodingOptions()
        options.maximumPixelCount = 10_000
        let decoder = try #require(SpngDecoder().makePreviewDecoder(format: .png, options: options, kinds: Self.both))
        #expect(throws: ImageDecodingError.unsupportedVariant(.png, detail: "more pixels than the decoding limit")) {
            _ = try decoder.preview(appending: data.prefix(40))
        }
        #expect(throws: ImageDecodingError.unsupportedVariant(.png, detail: "more pixels than the decoding limit")) {
            _ = try decoder.preview(appending: data.dropFirst(40))
        }
    }

    /// libpng checks each IDAT chunk's CRC: a damaged chunk before the last rows stops the
    /// previews (the final decode judges the file).
    @Test func damagedImageDataStopsThePreviewsAfterTheRowsBeforeIt() throws {
        let image = Self.texture(32, 32)
        var filtered: [UInt8] = []
        for y in 0..<32 { filtered += [0] + Self.rows(image, y..<(y + 1)) }
        var bytes = [UInt8](HostilePNGTests.png(width: 32, height: 32, depth: 8, colourType: 2, interlace: 0, palette: 0,
                                                filtered: filtered, splitIDAT: true))
        // A flipped byte near the end of the first of the two IDAT chunks: its CRC no longer matches.
        let idat = try #require((8..<(bytes.count - 4)).first { bytes[$0..<($0 + 4)].elementsEqual("IDAT".utf8) })
        let length = Int(bytes[idat - 4]) << 24 | Int(bytes[idat - 3]) << 16 | Int(bytes[idat - 2]) << 8 | Int(bytes[idat - 1])
        bytes[idat + 4 + length - 10] ^= 0x10
        let data = Data(bytes)
        let decoder = try #require(SpngDecoder().makePreviewDecoder(format: .png, options: ImageDecodingOptions(), kinds: Self.both))
        let first = try #require(try decoder.preview(appending: data.prefix(idat + 4 + length / 2)))
        #expect(Self.rows(first, 0..<4) == Self.rows(image, 0..<4))
        #expect(throws: ImageDecodingError.self) { _ = try decoder.preview(appending: data.dropFirst(idat + 4 + length / 2)) }
        #expect(throws: ImageDecodingError.self, "the decoder stays dead") { _ = try decoder.preview(appending: Data([0])) }
    }

    @Test func noPNGPreviewsWithoutTheIncrementalKindAndNoneOverTheLimit() throws {
        #expect(SpngDecoder().makePreviewDecoder(format: .png, options: ImageDecodingOptions(), kinds: .progressive) == nil)
        #expect(ImageDecoderRegistry.vips.makePreviewDecoder(format: .png, options: ImageDecodingOptions(), kinds: Self.both) != nil)
        let data = try #require(SpngEncoder.encode(Self.texture(200, 100), compression: 6))
        var options = ImageDecodingOptions()
        options.maximumPixelCount = 10_000
        let decoder = try #require(SpngDecoder().makePreviewDecoder(format: .png, options: options, kinds: Self.both))
        #expect(throws: ImageDecodingError.self) { _ = try decoder.preview(appending: data) }
    }
}
