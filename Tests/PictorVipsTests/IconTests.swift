import Foundation
import PictorCore
import PictorVips
import Testing

/// Favicons (ICO) and cursors (CUR): recognised by their directory, decoded to the largest
/// entry with its transparency, whether that entry is stored as PNG or as a BMP (DIB).
@Suite("ICO and CUR")
struct IconTests {
    typealias H = HandMadeFiles
    let decoder = ImageDecoderRegistry.vips

    /// `side × side` RGBA: the top row red, the left column blue, everything else green; alpha
    /// 255 except the bottom-right pixel (0) and the pixel above it (128).
    static func pattern(_ side: Int) -> Image {
        var bytes: [UInt8] = []
        for y in 0..<side {
            for x in 0..<side {
                var p: [UInt8] = y == 0 ? [255, 0, 0, 255] : (x == 0 ? [0, 0, 255, 255] : [0, 200, 0, 255])
                if x == side - 1, y == side - 1 { p[3] = 0 }
                if x == side - 1, y == side - 2 { p[3] = 128 }
                bytes += p
            }
        }
        return Image(width: side, height: side, layout: .rgba, pixels: Data(bytes))
    }

    /// A BMP (DIB) icon entry: BITMAPINFOHEADER (height doubled), palette, bottom-up XOR rows,
    /// then the AND mask (1 = transparent) for pixels whose alpha is 0.
    static func dib(_ image: Image, bitCount: Int) -> [UInt8] {
        let w = image.width, h = image.height
        let rgba = [UInt8](image.rgba8())
        func px(_ x: Int, _ y: Int) -> [UInt8] { Array(rgba[((y * w + x) * 4)..<((y * w + x) * 4 + 4)]) }
        var palette: [[UInt8]] = []
        if bitCount <= 8 {
            for y in 0..<h { for x in 0..<w { let c = Array(px(x, y).prefix(3)); if !palette.contains(c) { palette.append(c) } } }
            palette += [[UInt8]](repeating: [0, 0, 0], count: (1 << bitCount) - palette.count)
        }
        var out = H.le32(40) + H.le32(w) + H.le32(h * 2) + H.le16(1) + H.le16(bitCount) + H.le32(0)
        out += H.le32(0) + H.le32(0) + H.le32(0) + H.le32(bitCount <= 8 ? 1 << bitCount : 0) + H.le32(0)
        for c in palette { out += [c[2], c[1], c[0], 0] }
        let rowBytes = ((w * bitCount + 31) / 32) * 4
        for y in stride(from: h - 1, through: 0, by: -1) {
            var row = [UInt8](repeating: 0, count: rowBytes)
            for x in 0..<w {
                let p = px(x, y)
                switch bitCount {
                case 32: row[x * 4] = p[2]; row[x * 4 + 1] = p[1]; row[x * 4 + 2] = p[0]; row[x * 4 + 3] = p[3]
                case 24: row[x * 3] = p[2]; row[x * 3 + 1] = p[1]; row[x * 3 + 2] = p[0]
                default:
                    let index = palette.firstIndex(of: Array(p.prefix(3)))!
                    let bit = x * bitCount
                    row[bit / 8] |= UInt8(index << (8 - bitCount - bit % 8))
                }
            }
            out += row
        }
        let maskStride = ((w + 31) / 32) * 4
        for y in stride(from: h - 1, through: 0, by: -1) {
            var row = [UInt8](repeating: 0, count: maskStride)
            for x in 0..<w where px(x, y)[3] == 0 { row[x / 8] |= 0x80 >> (x % 8) }
            out += row
        }
        return out
    }

    /// An ICO (`type` 1) or CUR (`type` 2) file of `entries` (width, height, bit count, bytes).
    static func icon(type: Int = 1, _ entries: [(width: Int, height: Int, bitCount: Int, bytes: [UInt8])]) -> Data {
        var header = H.le16(0) + H.le16(type) + H.le16(entries.count)
        var offset = 6 + 16 * entries.count
        var body: [UInt8] = []
        for e in entries {
            header += [UInt8(e.width & 0xFF), UInt8(e.height & 0xFF), 0, 0]
            header += type == 2 ? H.le16(3) + H.le16(4) : H.le16(1) + H.le16(e.bitCount)
            header += H.le32(e.bytes.count) + H.le32(offset)
            body += e.bytes
            offset += e.bytes.count
        }
        return Data(header + body)
    }

    func expectPattern(_ image: Image, side: Int, format: ImageFormat, exactAlpha: Bool = true,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(image.width == side && image.height == side && image.layout == .rgba && image.sourceFormat == format,
                "\(image.width)x\(image.height) \(image.layout) \(String(describing: image.sourceFormat))", sourceLocation: sourceLocation)
        guard image.width == side, image.height == side, image.layout == .rgba else { return }
        #expect(TestImages.pixel(image, 3, 0) == [255, 0, 0, 255], sourceLocation: sourceLocation)
        #expect(TestImages.pixel(image, 0, 3) == [0, 0, 255, 255], sourceLocation: sourceLocation)
        #expect(TestImages.pixel(image, 3, 3) == [0, 200, 0, 255], sourceLocation: sourceLocation)
        #expect(TestImages.pixel(image, side - 1, side - 1)[3] == 0, sourceLocation: sourceLocation)
        if exactAlpha { #expect(TestImages.pixel(image, side - 1, side - 2) == [0, 200, 0, 128], sourceLocation: sourceLocation) }
    }

    @Test func formatsAreSniffedFromTheDirectory() {
        let ico = Self.icon([(16, 16, 32, Self.dib(Self.pattern(16), bitCount: 32))])
        let cur = Self.icon(type: 2, [(16, 16, 32, Self.dib(Self.pattern(16), bitCount: 32))])
        #expect(ImageFormat.sniff(ico) == .ico)
        #expect(ImageFormat.sniff(cur) == .cur)
        // Four bytes alone are not enough: a count of zero, or an entry pointing into the directory.
        #expect(ImageFormat.sniff(Data([0, 0, 1, 0, 0, 0] + [UInt8](repeating: 0, count: 40))) == nil)
        var bad = [UInt8](ico)
        bad[18] = 2; bad[19] = 0; bad[20] = 0; bad[21] = 0
        #expect(ImageFormat.sniff(Data(bad)) == nil)
        #expect(VipsDecoder.supportedFormats.isSuperset(of: [.ico, .cur]))
    }

    @Test func thePNGEntryIsDecodedWhenItIsTheLargest() throws {
        let data = Self.icon([(16, 16, 32, Self.dib(Self.pattern(16), bitCount: 32)),
                              (0, 0, 32, [UInt8](H.png(Self.pattern(256)))),
                              (48, 48, 32, [UInt8](H.png(Self.pattern(48))))])
        expectPattern(try decoder.decode(data, options: .init()), side: 256, format: .ico)
        let thumbnail = try decoder.decode(data, options: .init(thumbnail: .init(width: 64)))
        #expect(thumbnail.width == 64 && thumbnail.height == 64 && thumbnail.layout == .rgba)
    }

    @Test(arguments: [32, 24, 8, 4, 1])
    func bmpEntriesKeepTheirTransparency(bitCount: Int) throws {
        // 1-bit entries hold two colours: use a two-colour image there.
        let source: Image
        if bitCount == 1 {
            var bytes: [UInt8] = []
            for y in 0..<32 { for x in 0..<32 { bytes += x == 31 && y == 31 ? [255, 255, 255, 0] : (y == 0 ? [255, 255, 255, 255] : [0, 0, 0, 255]) } }
            source = Image(width: 32, height: 32, layout: .rgba, pixels: Data(bytes))
        } else {
            source = Self.pattern(32)
        }
        let data = Self.icon([(16, 16, 32, [UInt8](H.png(Self.pattern(16)))), (32, 32, bitCount, Self.dib(source, bitCount: bitCount))])
        let image = try decoder.decode(data, options: .init())
        if bitCount == 1 {
            #expect(image.width == 32 && image.layout == .rgba)
            #expect(TestImages.pixel(image, 5, 0) == [255, 255, 255, 255] && TestImages.pixel(image, 5, 5) == [0, 0, 0, 255])
            #expect(TestImages.pixel(image, 31, 31)[3] == 0)
        } else {
            // Only 32-bit entries carry partial alpha; the others have the AND mask's on/off.
            expectPattern(image, side: 32, format: .ico, exactAlpha: bitCount == 32)
        }
    }

    @Test func cursorsDecodeLikeIcons() throws {
        let data = Self.icon(type: 2, [(32, 32, 0, Self.dib(Self.pattern(32), bitCount: 32))])
        expectPattern(try decoder.decode(data, options: .init()), side: 32, format: .cur)
    }

    @Test func damagedIconsAreTypedErrors() throws {
        let data = Self.icon([(32, 32, 32, Self.dib(Self.pattern(32), bitCount: 32))])
        #expect(throws: ImageDecodingError.truncated(.ico)) { try decoder.decode(data.prefix(data.count - 100), options: .init()) }
        var garbage = [UInt8](data)
        for i in 22..<40 { garbage[i] = 0x7F }
        #expect(throws: ImageDecodingError.self) { try decoder.decode(Data(garbage), options: .init()) }
        let huge = Self.icon([(0, 0, 32, H.le32(40) + H.le32(100_000) + H.le32(200_000) + H.le16(1) + H.le16(32) + [UInt8](repeating: 0, count: 24))])
        #expect(throws: ImageDecodingError.self) { try decoder.decode(huge, options: .init(maximumPixelCount: 1_000_000)) }
    }
}
