import Foundation
import PictorCore

/// ICO and CUR files (favicons, cursors), which libvips 8.14 does not read: the icon directory
/// is parsed here and its largest entry decoded. An entry stored as PNG goes through libvips
/// (``VipsDecoder``, so the pixel limit and the thumbnail apply as for any PNG); an entry stored
/// as a BMP (DIB) is decoded here.
///
/// Limits: one image per file, the largest (by the directory's width × height, then bit depth);
/// BMP entries of 1, 4, 8, 24 or 32 bits per pixel, uncompressed (`BI_RGB`), bottom-up or
/// top-down. Their transparency is the 32-bit entry's alpha, or the 1-bit AND mask for the other
/// depths (and for 32-bit entries whose alpha is all zero, as old encoders wrote them). Other
/// entries (16-bit, RLE, bit fields) are ``ImageDecodingError/unsupportedVariant(_:detail:)``.
package enum IconDecoder {
    /// Decodes the largest entry of `data`, an ICO or CUR (`format`).
    static func decode(_ data: Data, format: ImageFormat, options: ImageDecodingOptions, vips: VipsDecoder) throws -> Image {
        let bytes = [UInt8](data)
        func u16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        func u32(_ i: Int) -> Int { u16(i) | u16(i + 2) << 16 }
        let count = bytes.count >= 6 ? u16(4) : 0
        guard count > 0 else { throw ImageDecodingError.corrupt(format, message: "icon directory has no entry") }
        guard bytes.count >= 6 + 16 * count else { throw ImageDecodingError.truncated(format) }
        var best: (area: Int, depth: Int, offset: Int, size: Int)? = nil
        for index in 0..<count {
            let e = 6 + 16 * index
            let width = bytes[e] == 0 ? 256 : Int(bytes[e]), height = bytes[e + 1] == 0 ? 256 : Int(bytes[e + 1])
            let candidate = (area: width * height, depth: format == .ico ? u16(e + 6) : 0, offset: u32(e + 12), size: u32(e + 8))
            if best.map({ candidate.area > $0.area || (candidate.area == $0.area && candidate.depth > $0.depth) }) ?? true {
                best = candidate
            }
        }
        guard let entry = best, entry.size > 0, entry.offset >= 6 + 16 * count else {
            throw ImageDecodingError.corrupt(format, message: "icon directory entry points into the directory")
        }
        // The directory gives the entry's size: data ending before it is a truncated file.
        guard entry.offset + entry.size <= bytes.count else { throw ImageDecodingError.truncated(format) }
        let body = Array(bytes[entry.offset..<(entry.offset + entry.size)])
        if body.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            do {
                var image = try vips.decode(Data(body), options: options)
                image.sourceFormat = format
                return image
            } catch let error as ImageDecodingError where error.kind == .truncated {
                throw ImageDecodingError.truncated(format)
            } catch let error as ImageDecodingError where error.kind == .corrupt {
                throw ImageDecodingError.corrupt(format, message: "PNG entry: \(error.message ?? "")")
            }
        }
        var image = try dib(body, format: format, options: options)
        if let thumbnail = options.thumbnail {
            do {
                image = try VipsRenderer().resize(image, to: thumbnail)
            } catch {
                throw ImageDecodingError.corrupt(format, message: "thumbnail: \(error)")
            }
        }
        return image
    }

    /// A BMP without its file header: BITMAPINFOHEADER (or a later version) whose height counts
    /// the colour rows and the AND mask's rows, a palette, the colour rows, then the mask.
    package static func dib(_ b: [UInt8], format: ImageFormat, options: ImageDecodingOptions) throws -> Image {
        guard b.count >= 40 else { throw ImageDecodingError.truncated(format) }
        func u16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func u32(_ i: Int) -> Int { u16(i) | u16(i + 2) << 16 }
        func i32(_ i: Int) -> Int { Int(Int32(bitPattern: UInt32(u32(i)))) }
        let headerSize = u32(0), width = i32(4), doubledHeight = i32(8), bitCount = u16(14), compression = u32(16)
        guard headerSize >= 40, headerSize <= 124, width > 0, doubledHeight != 0, doubledHeight != Int(Int32.min) else {
            throw ImageDecodingError.corrupt(format, message: "invalid BMP entry header")
        }
        let height = abs(doubledHeight) / 2, topDown = doubledHeight < 0
        guard height > 0 else { throw ImageDecodingError.corrupt(format, message: "invalid BMP entry height") }
        try VipsDecoder.checkPixelCount(width: width, height: height, options: options)
        guard [1, 4, 8, 24, 32].contains(bitCount), compression == 0 else {
            throw ImageDecodingError.unsupportedVariant(format, detail: "BMP entry of \(bitCount) bits per pixel, compression \(compression)")
        }
        var palette: [[UInt8]] = []
        var offset = headerSize
        if bitCount <= 8 {
            let used = u32(32), colours = used == 0 || used > 1 << bitCount ? 1 << bitCount : used
            guard b.count >= offset + 4 * colours else { throw ImageDecodingError.truncated(format) }
            palette = (0..<colours).map { [b[offset + 4 * $0 + 2], b[offset + 4 * $0 + 1], b[offset + 4 * $0]] }
            offset += 4 * colours
        }
        let rowBytes = (width * bitCount + 31) / 32 * 4, maskStride = (width + 31) / 32 * 4
        let colourEnd = offset + rowBytes * height, maskEnd = colourEnd + maskStride * height
        // A 32-bit entry carries its own alpha; some encoders leave its AND mask out.
        guard b.count >= (bitCount == 32 ? colourEnd : maskEnd) else { throw ImageDecodingError.truncated(format) }
        let hasMask = b.count >= maskEnd
        var out = [UInt8](repeating: 0, count: width * height * 4)
        var anyAlpha = false
        for y in 0..<height {
            let row = offset + (topDown ? y : height - 1 - y) * rowBytes
            for x in 0..<width {
                let o = (y * width + x) * 4
                switch bitCount {
                case 32:
                    out[o] = b[row + 4 * x + 2]; out[o + 1] = b[row + 4 * x + 1]; out[o + 2] = b[row + 4 * x]; out[o + 3] = b[row + 4 * x + 3]
                    anyAlpha = anyAlpha || out[o + 3] != 0
                case 24:
                    out[o] = b[row + 3 * x + 2]; out[o + 1] = b[row + 3 * x + 1]; out[o + 2] = b[row + 3 * x]; out[o + 3] = 255
                default:
                    let bit = x * bitCount
                    let index = Int(b[row + bit / 8] >> (8 - bitCount - bit % 8)) & ((1 << bitCount) - 1)
                    let colour = index < palette.count ? palette[index] : [0, 0, 0]
                    out[o] = colour[0]; out[o + 1] = colour[1]; out[o + 2] = colour[2]; out[o + 3] = 255
                }
            }
        }
        if hasMask, bitCount != 32 || !anyAlpha {
            for y in 0..<height {
                let row = colourEnd + (topDown ? y : height - 1 - y) * maskStride
                for x in 0..<width where b[row + x / 8] & (0x80 >> UInt8(x % 8)) != 0 {
                    out[(y * width + x) * 4 + 3] = 0
                }
            }
        } else if bitCount == 32, !anyAlpha {
            for i in stride(from: 3, to: out.count, by: 4) { out[i] = 255 }
        }
        return Image(width: width, height: height, layout: .rgba, frames: [Image.Frame(pixels: Data(out))],
                     sourceFrameCount: 1, sourceFormat: format)
    }
}
