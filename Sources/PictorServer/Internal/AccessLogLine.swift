import Foundation

/// One access-log line in ``AccessLogFormat``'s shapes.
enum AccessLogLine {
    struct Entry {
        var time: Date
        var client: String
        var method: String
        var target: String
        var status: Int?
        var bytes: Int
        var milliseconds: Double
    }

    /// The most bytes of a request target a line keeps: a path can be 8 KiB, a request line
    /// far more, and each escaped byte takes four, so a client could make every line it causes
    /// cost a log shipper 100 KiB.
    static let maxTargetBytes = 1024

    /// `target` cut to ``maxTargetBytes`` with `...[+N bytes]` after it when it was longer.
    static func capped(_ target: String) -> String {
        let count = target.utf8.count
        guard count > maxTargetBytes else { return target }
        let kept = String(decoding: target.utf8.prefix(maxTargetBytes), as: UTF8.self)
        // A cut inside a multi-byte character decodes to U+FFFD, escaped like any other byte.
        return kept + "...[+\(count - maxTargetBytes) bytes]"
    }

    static func render(_ entry: Entry, as format: AccessLogFormat) -> String {
        var entry = entry
        entry.target = capped(entry.target)
        let time = timestamp(entry.time)
        let ms = (entry.milliseconds * 10).rounded() / 10
        switch format {
        case .text:
            let status = entry.status.map(String.init) ?? "-"
            return "\(time) \(escapedText(entry.client)) \"\(escapedText(entry.method)) \(escapedText(entry.target))\" \(status) \(entry.bytes) \(ms)ms"
        case .json:
            let status = entry.status.map(String.init) ?? "null"
            return #"{"time":"\#(time)","client":\#(jsonString(entry.client)),"method":\#(jsonString(entry.method)),"path":\#(jsonString(entry.target)),"status":\#(status),"bytes":\#(entry.bytes),"ms":\#(ms)}"#
        }
    }

    /// Printable ASCII but `"` and `\` as they are; every other byte as `\xHH`, so a target
    /// cannot forge a line or a field.
    static func escapedText(_ text: String) -> String {
        guard needsEscaping(text) else { return text }
        var out = ""
        for byte in text.utf8 {
            if isPlain(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "\\x" + hex(byte)
            }
        }
        return out
    }

    /// A JSON string literal in ASCII: printable ASCII as it is, `"` and `\` escaped, every
    /// other code point as `\uXXXX` (a UTF-16 surrogate pair past U+FFFF), which a JSON reader
    /// turns back into the same text. (A target that is not UTF-8 is refused before it is
    /// logged; a repaired one shows as U+FFFD.)
    static func jsonString(_ text: String) -> String {
        guard needsEscaping(text) else { return "\"" + text + "\"" }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x20..<0x7F: out.unicodeScalars.append(scalar)
            default:
                for unit in String(scalar).utf16 {
                    out += "\\u" + hex(UInt8(unit >> 8)) + hex(UInt8(unit & 0xFF))
                }
            }
        }
        return out + "\""
    }

    /// Printable ASCII other than `"` and `\`: the bytes both escapes keep as they are.
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    /// Whether either escape changes `text`. Nearly every field is printable ASCII already, and
    /// is then its own escape.
    private static func needsEscaping(_ text: String) -> Bool {
        !text.utf8.allSatisfy(isPlain)
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    /// `2026-12-05T01:35:01.123Z`, without a formatter (one per line would cost more than the
    /// rest of the line).
    static func timestamp(_ date: Date) -> String {
        // To the nearest millisecond: 59.999 is 59.998999… as a Double.
        let total = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var whole = time_t(total >= 0 ? total / 1000 : (total - 999) / 1000)
        let millis = Int32(total - Int64(whole) * 1000)
        var parts = tm()
        gmtime_r(&whole, &parts)
        // Digits into a fixed buffer: an interpolated string per field cost a warm request
        // 2 % of its CPU.
        var out = [UInt8](repeating: 0, count: 24)
        func put(_ value: Int32, width: Int, at offset: Int) {
            var value = value
            for position in stride(from: offset + width - 1, through: offset, by: -1) {
                out[position] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(parts.tm_year + 1900, width: 4, at: 0)
        put(parts.tm_mon + 1, width: 2, at: 5)
        put(parts.tm_mday, width: 2, at: 8)
        put(parts.tm_hour, width: 2, at: 11)
        put(parts.tm_min, width: 2, at: 14)
        put(parts.tm_sec, width: 2, at: 17)
        put(millis, width: 3, at: 20)
        for (offset, byte) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "."), (23, "Z")] as [(Int, Unicode.Scalar)] {
            out[offset] = UInt8(ascii: byte)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
