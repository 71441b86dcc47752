import Foundation

/// Structural facts read straight from the encoded bytes, so errors are classified from the data
/// itself rather than from libvips' process-wide error text (which concurrent failures on other
/// threads can mix into).
package enum FileStructure {
    /// Whether the data visibly ends before the image does: JPEG cut before its first scan or
    /// without an EOI marker after its last SOS, PNG without an IEND chunk, WebP shorter than its RIFF size, GIF whose blocks
    /// run past the end before its trailer. `false` for other formats.
    package static func isTruncated(_ data: Data, format: ImageFormat) -> Bool {
        data.withUnsafeBytes { (b: UnsafeRawBufferPointer) -> Bool in
            let n = b.count
            switch format {
            case .jpeg:
                // The segments before the first scan are walked by their lengths (so an EXIF
                // thumbnail's own markers are skipped); a file that ends before that scan
                // starts is cut. After it, the file is whole when its last SOS-or-EOI marker is
                // an EOI. That one is searched from the end: a whole file ends with its EOI, so
                // this costs a few bytes, not a pass over the file (entropy-coded data never
                // holds FF D9 or FF DA: a coded FF is followed by 00 or a restart marker).
                var i = 2
                var firstScan = -1
                while i + 1 < n {
                    guard b[i] == 0xFF else { return false }   // not a marker: malformed, the decoder says so
                    let marker = b[i + 1]
                    if marker == 0xFF { i += 1; continue }       // fill byte
                    if marker == 0xDA { firstScan = i; break }
                    if marker == 0xD9 { return false }           // an image with no scan: not ours to judge
                    if marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
                    guard i + 3 < n else { return true }
                    i += 2 + (Int(b[i + 2]) << 8 | Int(b[i + 3]))
                }
                guard firstScan >= 0 else { return true }
                var j = n - 2
                while j > firstScan {
                    if b[j] == 0xFF {
                        if b[j + 1] == 0xD9 { return false }
                        if b[j + 1] == 0xDA { return true }
                    }
                    j -= 1
                }
                return true
            case .png:
                guard n >= 12 else { return true }
                let iend: [UInt8] = Array("IEND".utf8)
                var i = n - 8
                while i >= 8 {
                    if b[i] == iend[0], b[i + 1] == iend[1], b[i + 2] == iend[2], b[i + 3] == iend[3] { return false }
                    i -= 1
                }
                return true
            case .webp:
                guard n >= 12 else { return true }
                let size = Int(b[4]) | Int(b[5]) << 8 | Int(b[6]) << 16 | Int(b[7]) << 24
                return n < size + 8
            case .gif:
                return AnimationStructure.gif(b).isTruncated
            default:
                return false
            }
        }
    }

    /// The sample precision of a JPEG's first SOF marker (8 for ordinary JPEG, 12 or 16 for the
    /// extended ones libvips cannot read), or `nil` when not found.
    package static func jpegPrecision(_ data: Data) -> Int? {
        data.withUnsafeBytes { (b: UnsafeRawBufferPointer) -> Int? in
            var i = 2
            while i + 4 < b.count {
                guard b[i] == 0xFF else { i += 1; continue }
                let marker = b[i + 1]
                if marker == 0xFF || marker == 0x00 || (0xD0...0xD8).contains(marker) { i += 1; continue }
                if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                    return Int(b[i + 4])
                }
                if marker == 0xDA { return nil }
                let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
                i += 2 + length
            }
            return nil
        }
    }
}
