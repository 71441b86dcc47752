import Foundation

/// What the TurboJPEG fast path needs from a JPEG's marker segments (read up to the first SOS):
/// the EXIF orientation and whether an ICC profile is embedded.
struct JPEGMarkers {
    /// EXIF orientation 1...8 (1 when absent or invalid).
    var orientation = 1
    /// Whether an `ICC_PROFILE` APP2 segment is present (the image then needs colour management).
    var hasICCProfile = false

    /// Scans the marker segments of `bytes`; returns `nil` when they are malformed.
    init?(_ b: UnsafeRawBufferPointer) {
        guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }
            if marker == 0xDA || marker == 0xD9 { return }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2, i + 2 + length <= b.count else { return nil }
            let body = UnsafeRawBufferPointer(rebasing: b[(i + 4)..<(i + 2 + length)])
            if marker == 0xE1, orientation == 1, let value = Self.exifOrientation(body) { orientation = value }
            if marker == 0xE2, body.starts(with: Array("ICC_PROFILE\0".utf8)) { hasICCProfile = true }
            i += 2 + length
        }
        return nil
    }

    /// Tag 0x0112 of IFD0 in an `Exif\0\0` APP1 body.
    private static func exifOrientation(_ body: UnsafeRawBufferPointer) -> Int? {
        guard body.count > 14, body.starts(with: Array("Exif\0\0".utf8)) else { return nil }
        return EXIFOrientation.value(tiff: UnsafeRawBufferPointer(rebasing: body[6...]))
    }
}
