import PictorCore

/// Collects the status line and header fields of the final response from libcurl's header
/// callback, one line per call.
///
/// libcurl hands over every header block it reads: interim `1xx` responses (`100 Continue`,
/// `103 Early Hints`), then the final one, then any chunked trailers. A status line starts a
/// new block and forgets the previous one; the blank line after a final (`>= 200`) status
/// completes the head, and later lines (trailers) are ignored unless a new status line starts
/// another response. HTTP/2 responses arrive in the same shape (`HTTP/2 200`, lower-case names).
///
/// Repeated field names (compared case-insensitively) are joined with `", "` under the first
/// spelling seen, as `HTTPURLResponse` expects one value per name.
package struct ResponseHeadParser {
    /// What one line meant.
    package enum Event: Equatable {
        /// A status line, a field, or a line that is ignored.
        case none
        /// The blank line that ends an interim (`1xx`) response; a new status line follows.
        case interimResponseEnded
        /// The blank line that ends the final response's head.
        case finalResponseEnded
    }

    /// The final (or latest) status code, `nil` before a status line.
    package private(set) var statusCode: Int?
    /// The protocol of the status line, e.g. `HTTP/1.1` or `HTTP/2`.
    package private(set) var httpVersion: String?
    /// Whether the final response's head is complete.
    package private(set) var isComplete = false
    /// Whether a `101 Switching Protocols` head came: Pictor never asks for an upgrade, so what
    /// follows is no HTTP response.
    package private(set) var switchedProtocols = false
    /// The fields in the order received, repeated names joined with `", "` under the first
    /// spelling. A response has a dozen fields or so: a linear search without lower-casing or
    /// hashing is cheaper than a dictionary, and this runs for every header line of every
    /// response.
    package private(set) var fields: [HTTPResponseHead.Field] = []
    /// Positions in ``fields`` by lower-cased name, kept once a head has more than
    /// ``linearSearchLimit`` fields: past that, the linear search made a hostile head of
    /// thousands of distinct names cost quadratic time on the event thread.
    private var positions: [String: Int] = [:]
    /// The field the previous line wrote (added or joined), which an obsolete folded line
    /// continues; `nil` after a status line or a line that was ignored.
    private var lastWritten: Int?
    /// Fields searched linearly; more are looked up in ``positions``.
    package static let linearSearchLimit = 32

    /// A parser that has seen no line.
    package init() {}

    /// The value of `name` (any case), if present.
    package func value(for name: String) -> String? {
        var name = name
        return name.withUTF8 { key in position(of: UnsafeRawBufferPointer(key)).map { fields[$0].value } }
    }

    /// The `Content-Length` as a number, or `nil` when absent or malformed (repeated different
    /// values, as joined by this parser, count as malformed).
    package var contentLength: Int64? {
        guard let text = value(for: "Content-Length") else { return nil }
        // The usual single value (the parser trims field values) needs no splitting.
        if let length = Int64(text) { return length >= 0 ? length : nil }
        let parts = text.split(separator: ",").map { $0.trimmingASCIISpaces }
        guard let first = parts.first, let length = Int64(first), length >= 0,
              parts.allSatisfy({ $0 == first }) else { return nil }
        return length
    }

    /// Whether the body is content-encoded (a `Content-Encoding` other than `identity`), so the
    /// decoded body's length is unrelated to `Content-Length`.
    package var isContentEncoded: Bool {
        guard let encoding = value(for: "Content-Encoding")?.trimmingASCIISpaces.lowercased() else { return false }
        return !encoding.isEmpty && encoding != "identity"
    }

    /// Consumes one header line as libcurl delivers it (with its line ending, if any).
    package mutating func consume(_ line: UnsafeRawBufferPointer) -> Event {
        var end = line.count
        while end > 0, line[end - 1] == UInt8(ascii: "\n") || line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let bytes = UnsafeRawBufferPointer(rebasing: line[0..<end])
        let isStatusLine = Self.isStatusLine(bytes)
        guard !isComplete || isStatusLine else { return .none }

        if bytes.isEmpty {
            guard let code = statusCode else { return .none }
            if (100..<200).contains(code) {
                if code == 101 { switchedProtocols = true }
                reset()
                return .interimResponseEnded
            }
            isComplete = true
            return .finalResponseEnded
        }
        if isStatusLine {
            reset()
            parseStatusLine(bytes)
            return .none
        }
        guard statusCode != nil else { return .none }
        if Self.isSpace(bytes[0]) {
            // Obsolete line folding (RFC 9112 §5.2): the line continues the previous value.
            // The field it continues is the one the previous line wrote, which is not the last
            // in the list when that line joined a repeated name; a value that was empty takes the
            // continuation without the space (a field value has no leading white space).
            let text = Self.fieldValue(bytes)
            if let lastWritten, !text.isEmpty {
                if fields[lastWritten].value.isEmpty { fields[lastWritten].value = text } else { fields[lastWritten].value += " " + text }
            }
            return .none
        }
        lastWritten = nil
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return .none }
        let name = Self.trimmed(UnsafeRawBufferPointer(rebasing: bytes[0..<colon]))
        guard !name.isEmpty else { return .none }
        let value = Self.fieldValue(UnsafeRawBufferPointer(rebasing: bytes[(colon + 1)...]))
        guard name.contains(where: { $0 >= 0x80 }) else {
            add(name: name, value: value)
            return .none
        }
        // A name that is not ASCII is stored as a String, invalid UTF-8 repaired (U+FFFD), and
        // compared in that form, so that two lines stored under one name are one field whether
        // it is found by the linear search or in the dictionary.
        var stored = String(decoding: name, as: UTF8.self)
        stored.withUTF8 { add(name: UnsafeRawBufferPointer($0), value: value) }
        return .none
    }

    /// Adds `value` to the field named `name` (valid UTF-8), or a new field.
    private mutating func add(name: UnsafeRawBufferPointer, value: String) {
        if let position = position(of: name) {
            // An empty line adds no list element: no ", " with nothing on one side.
            if fields[position].value.isEmpty { fields[position].value = value } else if !value.isEmpty { fields[position].value += ", " + value }
            lastWritten = position
        } else {
            fields.append(HTTPResponseHead.Field(name: String(decoding: name, as: UTF8.self), value: value))
            lastWritten = fields.count - 1
            if fields.count > Self.linearSearchLimit {
                if positions.isEmpty {
                    for (index, field) in fields.enumerated() { positions[Self.folded(field.name.utf8)] = index }
                } else {
                    positions[Self.folded(name)] = fields.count - 1
                }
            }
        }
    }

    /// The index of the field named `name`, compared ASCII case-insensitively.
    private func position(of name: UnsafeRawBufferPointer) -> Int? {
        guard fields.count > Self.linearSearchLimit else {
            return fields.firstIndex { HTTPResponseHead.sameFieldName($0.name.utf8, name) }
        }
        return positions[Self.folded(name)]
    }

    /// `name` with ASCII letters lower-cased: the key of ``positions``.
    private static func folded<C: Collection<UInt8>>(_ name: C) -> String {
        String(decoding: name.lazy.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    private mutating func reset() {
        isComplete = false
        statusCode = nil
        httpVersion = nil
        fields.removeAll(keepingCapacity: true)
        positions.removeAll(keepingCapacity: true)
        lastWritten = nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    /// Whether the line starts with `HTTP/`, compared byte by byte: this runs for every header
    /// line, and the generic `starts(with:)` over a string's UTF-8 view cost more than the rest
    /// of the line's handling.
    private static func isStatusLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 5 && bytes[0] == UInt8(ascii: "H") && bytes[1] == UInt8(ascii: "T") && bytes[2] == UInt8(ascii: "T")
            && bytes[3] == UInt8(ascii: "P") && bytes[4] == UInt8(ascii: "/")
    }


    /// `bytes` without leading and trailing spaces and tabs (HTTP's optional whitespace).
    private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = 0, end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// A field value (or a folded line's text) as read: CR, LF and NUL replaced with spaces, as
    /// RFC 9110 §5.5 has a recipient do before anything reads it, then trimmed. A bare CR kept
    /// at the end would be lost when the head is written out again, and none should reach a
    /// consumer.
    private static func fieldValue(_ raw: UnsafeRawBufferPointer) -> String {
        func isControl(_ byte: UInt8) -> Bool { byte == 0x0D || byte == 0x0A || byte == 0x00 }
        guard raw.contains(where: isControl) else { return String(decoding: trimmed(raw), as: UTF8.self) }
        let cleaned = raw.map { isControl($0) ? UInt8(ascii: " ") : $0 }
        return cleaned.withUnsafeBytes { String(decoding: trimmed($0), as: UTF8.self) }
    }

    /// `HTTP/1.1 200 OK`, `HTTP/2 200`: the protocol token, then a three-digit code.
    private mutating func parseStatusLine(_ bytes: UnsafeRawBufferPointer) {
        let space = bytes.firstIndex(of: UInt8(ascii: " ")) ?? bytes.count
        httpVersion = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<space]), as: UTF8.self)
        var index = space
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
        var code = 0
        var digits = 0
        while index < bytes.count, digits < 3, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            code = code * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
            digits += 1
        }
        statusCode = digits == 3 ? code : 0
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    var trimmingASCIISpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }),
              let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
