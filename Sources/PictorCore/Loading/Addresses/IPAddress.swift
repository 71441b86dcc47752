import Foundation

/// An IPv4 or IPv6 address parsed from text, with no name resolution.
///
/// IPv4 is read as the C library's `inet_aton` (and so `getaddrinfo`, and so every transport)
/// reads a host: one to four parts, each decimal, octal (leading `0`) or hex (`0x`), the last
/// one filling the remaining bytes. `127.1`, `0x7f.0.0.1`, `017700000001` and `2130706433` are
/// all `127.0.0.1`; a guard that read only dotted quads would let them through.
///
/// IPv6 is RFC 4291 text: eight groups of up to four hex digits, one `::`, an optional dotted
/// IPv4 tail, with or without the URL's brackets; a zone (`%eth0`, `%25eth0`) is dropped.
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// Four bytes, most significant first.
    case v4(UInt8, UInt8, UInt8, UInt8)
    /// Sixteen bytes, most significant first.
    case v6([UInt8])

    /// The address `text` spells, or `nil` when it is not an address (a host name).
    public init?<S: StringProtocol>(_ text: S) {
        var host = Substring(text)
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        if host.contains(":") {
            guard let bytes = Self.parseV6(host) else { return nil }
            self = .v6(bytes)
        } else {
            guard let value = Self.parseV4(host) else { return nil }
            self = .v4(UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
        }
    }

    /// The address in its usual text: a dotted quad, or RFC 5952's form of IPv6 (lower-case
    /// hex, the longest run of two or more zero groups as `::`, an IPv4-mapped address with its
    /// dotted tail), e.g. `127.0.0.1`, `::1`, `::ffff:169.254.169.254`, `2001:db8::1`.
    public var description: String {
        switch self {
        case .v4(let a, let b, let c, let d):
            return "\(a).\(b).\(c).\(d)"
        case .v6(let bytes):
            guard bytes.count == 16 else { return "invalid" }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return "::ffff:\(bytes[12]).\(bytes[13]).\(bytes[14]).\(bytes[15])"
            }
            let groups = (0..<8).map { Int(bytes[2 * $0]) << 8 | Int(bytes[2 * $0 + 1]) }
            var best = (start: -1, count: 0), run = (start: -1, count: 0)
            for (index, group) in groups.enumerated() {
                if group == 0 {
                    run = run.start < 0 ? (index, 1) : (run.start, run.count + 1)
                    if run.count > best.count { best = run }
                } else {
                    run = (-1, 0)
                }
            }
            func hex(_ range: Range<Int>) -> String { groups[range].map { String($0, radix: 16) }.joined(separator: ":") }
            guard best.count >= 2 else { return hex(0..<8) }
            return hex(0..<best.start) + "::" + hex((best.start + best.count)..<8)
        }
    }

    /// `inet_aton`'s grammar; a trailing dot is accepted as DNS would accept it.
    static func parseV4(_ text: Substring) -> UInt32? {
        var body = text
        if body.hasSuffix(".") { body = body.dropLast() }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt64] = []
        for part in parts {
            guard let value = number(part) else { return nil }
            values.append(value)
        }
        var result: UInt64 = 0
        for (index, value) in values.dropLast().enumerated() {
            guard value <= 0xFF else { return nil }
            result |= value << UInt64(8 * (3 - index))
        }
        let lastBits = UInt64(8 * (5 - parts.count))
        guard let last = values.last, last < (1 << lastBits) else { return nil }
        return UInt32(result | last)
    }

    /// One `inet_aton` part: `0x…` hex, `0…` octal, else decimal; at most 12 digits.
    private static func number(_ part: Substring) -> UInt64? {
        guard !part.isEmpty, part.utf8.count <= 12 else { return nil }
        let lower = part.lowercased()
        if lower.hasPrefix("0x") {
            let digits = lower.dropFirst(2)
            return digits.isEmpty ? 0 : UInt64(digits, radix: 16)
        }
        if lower.hasPrefix("0"), lower.count > 1 { return UInt64(lower.dropFirst(), radix: 8) }
        return UInt64(lower, radix: 10)
    }

    static func parseV6(_ text: Substring) -> [UInt8]? {
        var body = text
        if let zone = body.firstIndex(of: "%") { body = body[..<zone] }
        guard !body.isEmpty, body.utf8.count <= 45 else { return nil }
        let halves = body.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        guard let head = groups(Substring(halves[0]), allowsV4Tail: halves.count == 1) else { return nil }
        var tail: [UInt8] = []
        if halves.count == 2 {
            guard let parsed = groups(Substring(halves[1]), allowsV4Tail: true) else { return nil }
            tail = parsed
            guard head.count + tail.count <= 14 else { return nil }
            return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
        }
        return head.count == 16 ? head : nil
    }

    /// The bytes of `:`-separated groups, the last of which may be a dotted IPv4 address.
    private static func groups(_ text: Substring, allowsV4Tail: Bool) -> [UInt8]? {
        if text.isEmpty { return [] }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var bytes: [UInt8] = []
        for (index, part) in parts.enumerated() {
            if index == parts.count - 1, allowsV4Tail, part.contains(".") {
                // Only a dotted quad here (RFC 4291 §2.2), not inet_aton's shorter forms.
                let quad = part.split(separator: ".", omittingEmptySubsequences: false)
                guard quad.count == 4 else { return nil }
                for piece in quad {
                    guard (1...3).contains(piece.count), piece.allSatisfy(\.isASCII), let value = UInt8(piece) else { return nil }
                    bytes.append(value)
                }
                continue
            }
            guard (1...4).contains(part.count), let value = UInt16(part, radix: 16) else { return nil }
            bytes.append(UInt8(value >> 8))
            bytes.append(UInt8(value & 0xFF))
        }
        return bytes
    }
}
