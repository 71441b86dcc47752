import Foundation

/// Reads frame sizes from a GIF's blocks without decoding pixels, so a decompression bomb (a
/// frame descriptor claiming gigapixels) is refused before libvips allocates anything.
package enum GIFHeader {
    /// The largest size a decoder must hold among the first 64 blocks: the canvas (the logical
    /// screen, grown side by side to hold the first frame's extent, offset + size, as libvips
    /// and browsers grow it), and every later frame's own size; `nil` when the bytes are not a
    /// GIF.
    package static func largestFrame(in data: Data) -> (width: Int, height: Int)? {
        data.withUnsafeBytes { (b: UnsafeRawBufferPointer) -> (width: Int, height: Int)? in
            guard b.count >= 13, b[0] == 0x47, b[1] == 0x49, b[2] == 0x46 else { return nil }
            func u16(_ i: Int) -> Int { i + 1 < b.count ? Int(b[i]) | Int(b[i + 1]) << 8 : 0 }
            var best = (width: u16(6), height: u16(8))
            var i = 13
            if b[10] & 0x80 != 0 { i += 3 << (Int(b[10] & 0x07) + 1) }
            func skipSubBlocks(_ start: Int) -> Int {
                var j = start
                while j < b.count, b[j] != 0 { j += Int(b[j]) + 1 }
                return j + 1
            }
            var blocks = 0, frames = 0
            while i < b.count, blocks < 64 {
                blocks += 1
                switch b[i] {
                case 0x2C:
                    // The first frame grows the canvas to hold its extent (offset + size), each side
                    // on its own, as browsers and libvips do when it exceeds the logical screen (a
                    // 1000 × 1 screen and a 1 × 1000 frame make 1000 × 1000); later frames are
                    // clipped to the canvas, so only their own size (the buffer a decoder fills) counts.
                    let w = frames == 0 ? max(best.width, u16(i + 1) + u16(i + 5)) : u16(i + 5)
                    let h = frames == 0 ? max(best.height, u16(i + 3) + u16(i + 7)) : u16(i + 7)
                    frames += 1
                    if w * h > best.width * best.height { best = (w, h) }
                    let flags = i + 9 < b.count ? b[i + 9] : 0
                    i += 10
                    if flags & 0x80 != 0 { i += 3 << (Int(flags & 0x07) + 1) }
                    i = skipSubBlocks(i + 1)
                case 0x21:
                    i = skipSubBlocks(i + 2)
                default:
                    return best
                }
            }
            return best
        }
    }
}
