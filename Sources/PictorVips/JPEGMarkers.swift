import Foundation

/// What ``TurboJPEGDecoder`` needs from a JPEG's marker segments (read up to the first SOS):
/// the EXIF orientation, whether an ICC profile is embedded, whether the frame is progressive,
/// and where the first scan starts.
package struct JPEGMarkers {
    /// EXIF orientation 1...8 (1 when absent or invalid).
    package var orientation = 1
    /// Whether an `ICC_PROFILE` APP2 segment is present (the image then needs colour management).
    package var hasICCProfile = false
    /// Whether the frame is progressive (SOF2, SOF6, SOF10, SOF14): libjpeg then reads every
    /// scan before the first row is out.
    package var isProgressive = false
    /// Where the first SOS marker is; `nil` when the file has none.
    package var firstScan: Int?

    /// Scans the marker segments of `bytes`; returns `nil` when they are malformed.
    package init?(_ b: UnsafeRawBufferPointer) {
        guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }
            if marker == 0xDA { firstScan = i; return }
            if marker == 0xD9 { return }
            if [0xC2, 0xC6, 0xCA, 0xCE].contains(marker) { isProgressive = true }
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

    /// Whether the markers from the first scan to the first EOI are only those libjpeg reads
    /// there without an error: restart markers, and between the scans of a progressive file
    /// their tables, scans and comments. Any other marker (damage that made `FF xx` in the
    /// coded data) ends a sequential scan, and libjpeg then fails on it while finishing, after
    /// every row is out, where libvips ignores that failure and returns the image.
    package func scanMarkersAreExpected(_ b: UnsafeRawBufferPointer) -> Bool {
        guard var i = firstScan, let base = b.baseAddress else { return true }
        let expectedBetweenScans: Set<UInt8> = [0xC4, 0xCC, 0xDA, 0xDB, 0xDD, 0xFE]
        i += 2
        while i + 1 < b.count {
            // Coded data never holds FF but as FF 00, a restart marker or a marker: memchr skips the rest.
            guard let hit = memchr(base + i, 0xFF, b.count - i - 1) else { return true }
            i = base.distance(to: UnsafeRawPointer(hit))
            let marker = b[i + 1]
            switch marker {
            case 0x00, 0xFF, 0xD0...0xD7: i += 1
            case 0xD9: return true
            case _ where isProgressive && (expectedBetweenScans.contains(marker) || (0xE0...0xEF).contains(marker)):
                guard i + 3 < b.count else { return true }
                i += 2 + (Int(b[i + 2]) << 8 | Int(b[i + 3]))
            default: return false
            }
        }
        return true
    }

    /// Tag 0x0112 of IFD0 in an `Exif\0\0` APP1 body.
    private static func exifOrientation(_ body: UnsafeRawBufferPointer) -> Int? {
        guard body.count > 14, body.starts(with: Array("Exif\0\0".utf8)) else { return nil }
        return EXIFOrientation.value(tiff: UnsafeRawBufferPointer(rebasing: body[6...]))
    }
}
