/// URL-safe base64 (RFC 4648 §5) without padding, as imgproxy's signatures and encoded source
/// URLs use it.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let n = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)]]
            if rest == 2 { out.append(alphabet[Int(n >> 6 & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `text`, or `nil` if it has a character outside the URL-safe alphabet or a
    /// length that no byte string encodes to (4n+1). Trailing `=` are ignored, as imgproxy
    /// trims them before decoding.
    static func decode<C: Collection>(_ text: C) -> [UInt8]? where C.Element == UInt8 {
        var values: [UInt8] = []
        values.reserveCapacity(text.count)
        var sawPadding = false
        for byte in text {
            if byte == UInt8(ascii: "=") { sawPadding = true; continue }
            guard !sawPadding, let value = value(of: byte) else { return nil }
            values.append(value)
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index < values.count {
            let chunk = values[index..<min(index + 4, values.count)]
            var n: UInt32 = 0
            for value in chunk { n = n << 6 | UInt32(value) }
            n <<= UInt32(6 * (4 - chunk.count))
            let produced = chunk.count - 1
            for shift in [16, 8, 0].prefix(produced) { out.append(UInt8(truncatingIfNeeded: n >> UInt32(shift))) }
            index += 4
        }
        return out
    }

    private static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
