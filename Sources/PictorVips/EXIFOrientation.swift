import Foundation

/// The EXIF orientation tag (0x0112 of IFD0), read from a TIFF-structured EXIF block: what the
/// JPEG and WebP fast paths need from EXIF, nothing else.
package enum EXIFOrientation {
    /// Orientation 1...8 of the TIFF structure (`II*\0` or `MM\0*` header) at the start of
    /// `tiff`, or `nil` when it has none or the block is malformed.
    package static func value(tiff: UnsafeRawBufferPointer) -> Int? {
        guard tiff.count >= 8 else { return nil }
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ o: Int) -> Int? {
            guard o >= 0, o + 2 <= tiff.count else { return nil }
            return little ? Int(tiff[o]) | Int(tiff[o + 1]) << 8 : Int(tiff[o]) << 8 | Int(tiff[o + 1])
        }
        func u32(_ o: Int) -> Int? {
            guard let a = u16(o), let b = u16(o + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard let ifd = u32(4), let count = u16(ifd) else { return nil }
        for entry in 0..<min(count, 512) {
            let o = ifd + 2 + entry * 12
            guard let tag = u16(o) else { return nil }
            if tag == 0x0112 {
                guard let type = u16(o + 2), type == 3, let value = u16(o + 8), (1...8).contains(value) else { return nil }
                return value
            }
        }
        return nil
    }

    /// ``value(tiff:)`` of an EXIF payload that may start with the `Exif\0\0` header JPEG's APP1
    /// segment carries (WebP writers store the block with or without it; libvips reads both).
    package static func value(exif: UnsafeRawBufferPointer) -> Int? {
        let header = Array("Exif\0\0".utf8)
        guard exif.starts(with: header) else { return value(tiff: exif) }
        return value(tiff: UnsafeRawBufferPointer(rebasing: exif[header.count...]))
    }
}
