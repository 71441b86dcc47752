import Foundation

/// An encoded image format, detected from the first bytes of the data (its "magic number").
///
/// Pictor never trusts a file extension or an HTTP `Content-Type`: the format always comes from
/// ``ImageFormat/sniff(_:)-(Data)``. Signatures follow each format's specification (JPEG: ITU T.81
/// SOI marker; PNG: RFC 2083 §3.1; GIF: GIF89a spec; WebP: RIFF container; AVIF/HEIC: ISO/IEC
/// 14496-12 `ftyp` box brands; TIFF: TIFF 6.0 byte-order header; BMP: `BM` and a known DIB
/// header size; JPEG XL: ISO/IEC 18181 codestream and container signatures; SVG: an XML
/// document whose root is `<svg`; ICO/CUR: the icon directory header with a plausible first
/// entry).
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, Codable {
    case jpeg
    case png
    case gif
    case webp
    case avif
    case heic
    case tiff
    case bmp
    case jxl
    case svg
    /// Windows icon (favicon): a directory of images, each a PNG or a BMP without its file header.
    case ico
    /// Windows cursor: an icon directory whose entries also carry a hot spot.
    case cur

    /// The IANA media type of the format, for example `image/jpeg`.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .heic: "image/heic"
        case .tiff: "image/tiff"
        case .bmp: "image/bmp"
        case .jxl: "image/jxl"
        case .svg: "image/svg+xml"
        case .ico: "image/vnd.microsoft.icon"
        case .cur: "image/x-win-bitmap"
        }
    }

    /// The usual file name extension, without the dot (`jpg` for JPEG).
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .svg: "svg"
        default: rawValue
        }
    }

    /// The number of leading bytes that ``sniff(_:)-(Data)`` needs for the binary formats (32).
    /// SVG detection reads up to the first ``svgSniffLength`` bytes.
    public static let sniffLength = 32

    /// How far into the data SVG detection looks for the `<svg` root (4,096 bytes): after an
    /// XML prolog, a DOCTYPE with an internal subset, and licence comments.
    public static let svgSniffLength = 4096

    /// Detects the format from the leading bytes of `data`.
    ///
    /// - Parameter data: the encoded bytes, or at least their first ``sniffLength`` bytes
    ///   (``svgSniffLength`` for SVG).
    /// - Returns: the format, or `nil` when the bytes are not a known image format (an HTML
    ///   page, JSON, an empty body, …).
    public static func sniff(_ data: Data) -> ImageFormat? {
        data.withUnsafeBytes { sniff(UnsafeRawBufferPointer($0)) }
    }

    /// Detects the format from a raw buffer; see ``sniff(_:)-(Data)``.
    public static func sniff(_ b: UnsafeRawBufferPointer) -> ImageFormat? {
        let n = b.count
        func at(_ i: Int) -> UInt8 { i < n ? b[i] : 0 }
        func matches(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            guard n >= offset + bytes.count else { return false }
            for (i, v) in bytes.enumerated() where b[offset + i] != v { return false }
            return true
        }
        if matches([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if matches(Array("GIF87a".utf8)) || matches(Array("GIF89a".utf8)) { return .gif }
        if matches(Array("RIFF".utf8)) && matches(Array("WEBP".utf8), at: 8) { return .webp }
        if matches(Array("ftyp".utf8), at: 4) {
            // ISO BMFF: major brand at 8, compatible brands after the minor version (16...).
            let boxSize = Int(at(0)) << 24 | Int(at(1)) << 16 | Int(at(2)) << 8 | Int(at(3))
            let end = min(n, max(16, min(boxSize, 64)))
            var brands: [String] = []
            var i = 8
            while i + 4 <= end {
                if i != 12 { brands.append(String(decoding: [at(i), at(i + 1), at(i + 2), at(i + 3)], as: UTF8.self)) }
                i += 4
            }
            if brands.first == "avif" || brands.first == "avis" { return .avif }
            if let major = brands.first, ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].contains(major) {
                if major == "mif1" || major == "msf1", brands.contains("avif") { return .avif }
                return .heic
            }
            if brands.contains("avif") { return .avif }
            if brands.contains("heic") || brands.contains("heix") { return .heic }
            return nil
        }
        if matches([0x49, 0x49, 0x2A, 0x00]) || matches([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if matches([0x42, 0x4D]) && n >= 18 {
            // `BM`, then a DIB header whose size (little-endian at offset 14) is one of the known
            // ones (BITMAPCOREHEADER 12 … BITMAPV5HEADER 124), so text starting with "BM" is not BMP.
            let dib = Int(at(14)) | Int(at(15)) << 8 | Int(at(16)) << 16 | Int(at(17)) << 24
            if [12, 16, 40, 52, 56, 64, 108, 124].contains(dib) { return .bmp }
        }
        if matches([0xFF, 0x0A]) { return .jxl }
        if matches([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jxl }
        if let icon = iconFormat(b) { return icon }
        if isSVG(b) { return .svg }
        return nil
    }

    /// ICO (type 1) or CUR (type 2): `00 00`, the type, an entry count ≥ 1, and a first
    /// directory entry that is plausible (reserved byte 0, a non-empty image placed after the
    /// directory; for ICO one colour plane at most and a known bit depth), since four bytes
    /// alone would match many binary files.
    private static func iconFormat(_ b: UnsafeRawBufferPointer) -> ImageFormat? {
        guard b.count >= 22, b[0] == 0, b[1] == 0, b[2] == 1 || b[2] == 2, b[3] == 0 else { return nil }
        func u16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        func u32(_ i: Int) -> Int { u16(i) | u16(i + 2) << 16 }
        let count = u16(4)
        guard count >= 1, b[9] == 0, u32(14) > 0, u32(18) >= 6 + 16 * count else { return nil }
        if b[2] == 2 { return .cur }
        guard u16(10) <= 1, [0, 1, 4, 8, 16, 24, 32].contains(u16(12)) else { return nil }
        return .ico
    }

    /// SVG by content: optional UTF-8 BOM, whitespace, XML prolog, comments and a DOCTYPE (with
    /// or without an internal subset in brackets), then an `<svg` root element, within the first
    /// ``svgSniffLength`` bytes.
    private static func isSVG(_ b: UnsafeRawBufferPointer) -> Bool {
        // Lenient decoding: a multi-byte character cut at the window's end must not hide the root.
        var text = String(decoding: b.prefix(svgSniffLength), as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var rest = Substring(text)
        while true {
            rest = rest.drop(while: { $0.isWhitespace })
            if rest.hasPrefix("<?") {
                guard let end = rest.range(of: "?>") else { return false }
                rest = rest[end.upperBound...]
            } else if rest.hasPrefix("<!--") {
                guard let end = rest.range(of: "-->") else { return false }
                rest = rest[end.upperBound...]
            } else if rest.hasPrefix("<!DOCTYPE") || rest.hasPrefix("<!doctype") {
                // An internal subset (`[ <!ENTITY …> ]`) holds `>` characters of its own.
                let subsetStart = rest.firstIndex(of: "["), close = rest.firstIndex(of: ">")
                if let subsetStart, let close, subsetStart < close {
                    guard let subsetEnd = rest[subsetStart...].range(of: "]")?.lowerBound,
                          let end = rest[subsetEnd...].firstIndex(of: ">") else { return false }
                    rest = rest[rest.index(after: end)...]
                } else {
                    guard let close else { return false }
                    rest = rest[rest.index(after: close)...]
                }
            } else {
                break
            }
        }
        return rest.hasPrefix("<svg")
    }
}
