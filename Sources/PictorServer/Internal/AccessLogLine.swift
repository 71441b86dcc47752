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
        var out = ""
        for byte in text.utf8 {
            if byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "\\x" + hex(byte)
            }
        }
        return out
    }

    /// A JSON string literal: printable ASCII as it is, `"` and `\` escaped, every other byte
    /// (a target's bytes need not be UTF-8) as `\u00HH`.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(byte))
            default: out += "\\u00" + hex(byte)
            }
        }
        return out + "\""
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    /// `2026-12-05T01:35:01.123Z`, without a formatter (one per line would cost more than the
    /// rest of the line).
    static func timestamp(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        var whole = time_t(seconds.rounded(.down))
        let millis = Int((seconds - seconds.rounded(.down)) * 1000)
        var parts = tm()
        gmtime_r(&whole, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms)Z"
    }
}
