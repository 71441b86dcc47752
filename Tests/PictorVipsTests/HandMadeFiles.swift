import Foundation
import PictorCore

/// Encoded files built byte by byte, so a test controls exactly what the decoder sees (an ICC
/// profile that does not fit, an icon directory, …) without any encoder's opinion.
enum HandMadeFiles {
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    static func zlibStored(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, bytes.count - offset)
            let last = offset + n == bytes.count
            out += [last ? 1 : 0] + le16(n) + le16(~n & 0xFFFF) + bytes[offset..<offset + n]
            offset += n
        } while offset < bytes.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + be32(b << 16 | a)
    }

    /// An 8-bit PNG of `image` (grey, grey+alpha, RGB or RGBA), with an `iCCP` chunk when
    /// `profile` is given.
    static func png(_ image: Image, profile: [UInt8]? = nil) -> Data {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return be32(UInt32(body.count)) + typed + be32(crc32(typed))
        }
        let colourType: UInt8 = switch image.layout { case .gray: 0; case .grayAlpha: 4; case .rgb: 2; case .rgba: 6 }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", be32(UInt32(image.width)) + be32(UInt32(image.height)) + [8, colourType, 0, 0, 0])
        if let profile { bytes += chunk("iCCP", Array("icc".utf8) + [0, 0] + zlibStored(profile)) }
        var raw: [UInt8] = []
        let pixels = [UInt8](image.pixels)
        for y in 0..<image.height { raw.append(0); raw += pixels[(y * image.bytesPerRow)..<((y + 1) * image.bytesPerRow)] }
        bytes += chunk("IDAT", zlibStored(raw))
        bytes += chunk("IEND", [])
        return Data(bytes)
    }

    /// `jpeg` with an `ICC_PROFILE` APP2 segment inserted right after SOI.
    static func jpeg(_ jpeg: Data, profile: [UInt8]) -> Data {
        let body = Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile
        let bytes = [UInt8](jpeg)
        return Data(Array(bytes[0..<2]) + [0xFF, 0xE2] + be16(body.count + 2) + body + Array(bytes[2...]))
    }

    /// ICC v2 profiles made of a white point, colorants and gamma curves (matrix/TRC), enough
    /// for Little CMS to build a transform.
    enum ICC {
        typealias XYZ = (Double, Double, Double)
        static let d50: XYZ = (0.9642, 1.0, 0.8249)
        /// Display P3 colorants, Bradford-adapted to D50.
        static let displayP3 = (r: (0.5151, 0.2412, -0.0011), g: (0.2920, 0.6922, 0.0419), b: (0.1571, 0.0666, 0.7841))
        /// Adobe RGB (1998) colorants, Bradford-adapted to D50.
        static let adobeRGB = (r: (0.6097, 0.3111, 0.0195), g: (0.2053, 0.6257, 0.0609), b: (0.1492, 0.0632, 0.7446))

        static func s15f16(_ v: Double) -> [UInt8] { be32(UInt32(bitPattern: Int32((v * 65536).rounded()))) }
        static func xyzTag(_ v: XYZ) -> [UInt8] { Array("XYZ ".utf8) + [0, 0, 0, 0] + s15f16(v.0) + s15f16(v.1) + s15f16(v.2) }
        static func curveTag(gamma: Double) -> [UInt8] {
            Array("curv".utf8) + [0, 0, 0, 0] + be32(1) + be16(Int((gamma * 256).rounded())) + [0, 0]
        }
        static func descTag(_ text: String) -> [UInt8] {
            let ascii = Array(text.utf8) + [0]
            var tag = Array("desc".utf8) + [0, 0, 0, 0] + be32(UInt32(ascii.count)) + ascii
            tag += [UInt8](repeating: 0, count: 4 + 4 + 2 + 1 + 67)
            while tag.count % 4 != 0 { tag.append(0) }
            return tag
        }

        /// A profile of `space` (`"RGB "` or `"GRAY"`), class `mntr`, PCS XYZ, with `tags`.
        static func profile(space: String, tags: [(String, [UInt8])]) -> [UInt8] {
            let tableSize = 4 + 12 * tags.count
            var offset = 128 + tableSize
            var table = be32(UInt32(tags.count)), data: [UInt8] = []
            for (signature, tag) in tags {
                table += Array(signature.utf8) + be32(UInt32(offset)) + be32(UInt32(tag.count))
                var padded = tag
                while padded.count % 4 != 0 { padded.append(0) }
                data += padded
                offset += padded.count
            }
            var header = be32(UInt32(offset)) + Array("lcms".utf8) + [2, 0x10, 0, 0] + Array("mntr".utf8)
            header += Array(space.utf8) + Array("XYZ ".utf8) + [UInt8](repeating: 0, count: 12) + Array("acsp".utf8)
            header += [UInt8](repeating: 0, count: 4 + 4 + 4 + 4 + 8 + 4) // platform, flags, manufacturer, model, attributes, intent
            header += s15f16(d50.0) + s15f16(d50.1) + s15f16(d50.2)
            header += [UInt8](repeating: 0, count: 128 - header.count)
            return header + table + data
        }

        static func rgb(_ name: String, colorants: (r: XYZ, g: XYZ, b: XYZ), gamma: Double) -> [UInt8] {
            profile(space: "RGB ", tags: [
                ("desc", descTag(name)), ("wtpt", xyzTag(d50)),
                ("rXYZ", xyzTag(colorants.r)), ("gXYZ", xyzTag(colorants.g)), ("bXYZ", xyzTag(colorants.b)),
                ("rTRC", curveTag(gamma: gamma)), ("gTRC", curveTag(gamma: gamma)), ("bTRC", curveTag(gamma: gamma)),
            ])
        }

        static func gray(gamma: Double = 2.2) -> [UInt8] {
            profile(space: "GRAY", tags: [("desc", descTag("Grey")), ("wtpt", xyzTag(d50)), ("kTRC", curveTag(gamma: gamma))])
        }
    }
}
