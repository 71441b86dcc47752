import Foundation
import PictorCore
import PictorVips

/// `png-rows`: a PNG's incremental previews (`PNGPreviews`, libpng's progressive reader behind
/// `CPNGShim`) fed in pieces of sizes the input chooses, checked against the file's header and
/// against the final decode.
enum PNGRowsTarget {
    /// The previews' and the final decode's pixel limit: a header over it must be refused.
    static let maximumPixels = 1 << 20

    /// The piece sizes and the file: byte 0 says how many size bytes follow (1...4, its low two
    /// bits plus one); each size byte is a piece of 1...127 bytes, or of (v - 127) × 64 bytes at
    /// 128 and above, or (0) the rest of the file at once. The pieces cycle through the sizes.
    static func split(_ b: UnsafeRawBufferPointer) -> (sizes: [Int], file: Data)? {
        guard let first = b.first else { return nil }
        let count = Int(first & 3) + 1
        guard b.count > count else { return nil }
        let sizes = b[1...count].map { v in v == 0 ? Int.max : v < 128 ? Int(v) : (Int(v) - 127) * 64 }
        return (sizes, Data(b[(count + 1)...]))
    }

    /// The width, height, bit depth and colour type an IHDR chunk right after the signature
    /// declares.
    static func header(_ file: Data) -> (width: Int, height: Int, depth: UInt8, colourType: UInt8)? {
        let bytes = [UInt8](file.prefix(26))
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count == 26, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
        func be32(_ i: Int) -> Int { Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]) }
        return (be32(16), be32(20), bytes[24], bytes[25])
    }

    /// Whether every chunk from the signature to IEND is whole, with its CRC right, and nothing
    /// follows: a file libpng may finish without a word (a CRC error after the last row ends
    /// the previews as IEND would) while the final decoder reads the damage its own way.
    static func chunksAreIntact(_ file: Data) -> Bool {
        let bytes = [UInt8](file)
        guard bytes.count >= 8 else { return false }
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length <= bytes.count - offset - 12 else { return false }
            let typed = Array(bytes[(offset + 4)..<(offset + 8 + length)])
            let stored = bytes[(offset + 8 + length)..<(offset + 12 + length)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard ShimTargets.crc32(typed) == stored else { return false }
            offset += 12 + length
            if typed.prefix(4) == Array("IEND".utf8)[...] { return offset == bytes.count }
        }
        return false
    }

    @Sendable static func run(_ b: UnsafeRawBufferPointer) {
        guard let (sizes, file) = split(b) else { return }
        var options = ImageDecodingOptions()
        options.maximumPixelCount = maximumPixels
        guard let decoder = SpngDecoder().makePreviewDecoder(format: .png, options: options, kinds: .incremental) else {
            check(false, "no preview decoder for a PNG")
            return
        }
        let declared = header(file)
        var offset = 0, piece = 0
        var last: Image?
        var failed = false
        while offset < file.count {
            let size = min(sizes[piece % sizes.count], file.count - offset)
            piece += 1
            let bytes = file.subdata(in: offset..<(offset + size))
            offset += size
            do {
                guard let preview = try decoder.preview(appending: bytes) else { continue }
                let bands = preview.layout.bands
                check((1...4).contains(bands), "\(bands) bands")
                check(preview.pixels.count == preview.width * preview.height * bands,
                      "\(preview.pixels.count) bytes for \(preview.width)×\(preview.height)×\(bands)")
                check(preview.width * preview.height <= maximumPixels, "\(preview.width)×\(preview.height) is over the limit")
                if let declared {
                    check(preview.width == declared.width && preview.height == declared.height,
                          "a \(preview.width)×\(preview.height) preview of a \(declared.width)×\(declared.height) header")
                } else {
                    check(false, "a preview of a file without an IHDR chunk first")
                }
                last = preview
            } catch is ImageDecodingError {
                // Damaged or refused: the previews stop here, the final decode judges the file.
                failed = true
                break
            } catch {
                check(false, "unexpected error \(error)")
            }
        }
        guard !failed, let last, chunksAreIntact(file),
              let final = try? ImageDecoderRegistry.vips.decode(file, options: options)
        else { return }
        // A whole, undamaged file libpng read without complaint and the final decode takes:
        // every row is in the last preview, so it is the final image.
        check(final.width == last.width && final.height == last.height && final.layout == last.layout,
              "final \(final.width)×\(final.height) \(final.layout), last preview \(last.width)×\(last.height) \(last.layout)")
        // 16-bit grey may be one level off: libvips converts it through its colour pipeline
        // (GREY16 to B_W), which rounds some samples differently from libpng's v / 257.
        let greySixteen = declared.map { $0.depth == 16 && ($0.colourType == 0 || $0.colourType == 4) } ?? false
        let off = zip(final.pixels, last.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        check(off <= (greySixteen ? 1 : 0), "the last preview differs from the final decode by up to \(off)")
    }
}
