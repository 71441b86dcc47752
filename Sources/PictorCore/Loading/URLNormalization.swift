import Foundation

/// Percent-encoding of URLs as users type them: spaces, non-ASCII text and other characters
/// not allowed in a URL are encoded exactly once, as UTF-8 (RFC 3986 §2.1); escapes already
/// present (`%20`, `%C3%A9`) are kept as they are, so encoding twice changes nothing.
///
/// Only the path, query and fragment are touched: the scheme and authority are left alone (an
/// internationalised host name is the transport's to convert, with IDNA).
package enum URLNormalization {
    /// Characters kept as they are: RFC 3986 unreserved and reserved characters, and `%` when it
    /// starts a valid escape.
    /// One flag per byte value: a table lookup, because every byte of every URL of a list is
    /// checked.
    private static let allowedBytes: [Bool] = {
        var table = [Bool](repeating: false, count: 256)
        for byte in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=".utf8 {
            table[Int(byte)] = true
        }
        return table
    }()

    private static func isAllowed(_ byte: UInt8) -> Bool { allowedBytes[Int(byte)] }

    /// `string` with every byte outside the allowed set percent-encoded once.
    package static func percentEncoded(_ string: String) -> String {
        let bytes = Array(string.utf8)
        let start = authorityEnd(bytes)
        guard bytes[start...].contains(where: { !isAllowed($0) }) else { return string }
        var out = Array(bytes[..<start])
        out.reserveCapacity(bytes.count + 16)
        var i = start
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%"), i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) {
                out.append(contentsOf: bytes[i...(i + 2)])
                i += 3
                continue
            }
            if isAllowed(b) {
                out.append(b)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigit(b >> 4))
                out.append(hexDigit(b & 0x0F))
            }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A URL for `string` after ``percentEncoded(_:)``, or `nil` when even that does not parse.
    package static func url(_ string: String) -> URL? {
        URL(string: percentEncoded(string))
    }

    /// The index after `scheme://authority` (0 when the string has no authority).
    private static func authorityEnd(_ bytes: [UInt8]) -> Int {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
              bytes[..<colon].allSatisfy({ isSchemeByte($0) }) else { return 0 }
        let rest = colon + 1
        guard bytes.count >= rest + 2, bytes[rest] == UInt8(ascii: "/"), bytes[rest + 1] == UInt8(ascii: "/") else { return rest }
        var i = rest + 2
        while i < bytes.count, bytes[i] != UInt8(ascii: "/"), bytes[i] != UInt8(ascii: "?"), bytes[i] != UInt8(ascii: "#") { i += 1 }
        return i
    }

    private static func isSchemeByte(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2B || b == 0x2D || b == 0x2E
    }

    private static func isHex(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
    }

    private static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x41 + v - 10 }
}
