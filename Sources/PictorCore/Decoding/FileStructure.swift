import Foundation

/// Structural facts read straight from the encoded bytes, so errors are classified from the data
/// itself rather than from libvips' process-wide error text (which concurrent failures on other
/// threads can mix into).
package enum FileStructure {
    /// Whether the data visibly ends before the image does: JPEG without an EOI marker after its
    /// last SOS, PNG without an IEND chunk, WebP shorter than its RIFF size, GIF whose blocks
    /// run past the end before its trailer. `false` for other formats.
    package static func isTruncated(_ data: Data, format: ImageFormat) -> Bool {
        data.withUnsafeBytes { (b: UnsafeRawBufferPointer) -> Bool in
            let n = b.count
            switch format {
            case .jpeg:
                var lastSOS = -1, lastEOI = -1
                var i = 0
                while i + 1 < n {
                    if b[i] == 0xFF {
                        if b[i + 1] == 0xDA { lastSOS = i } else if b[i + 1] == 0xD9 { lastEOI = i }
                    }
                    i += 1
                }
                return lastSOS >= 0 && lastEOI < lastSOS
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
