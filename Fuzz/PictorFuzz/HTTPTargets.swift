import Foundation
import PictorCore
import PictorCurl

/// Targets over what servers send: the response head, dates, `Cache-Control`, `Vary`, and
/// the URLs users type.
enum HTTPTargets {
    /// The response-head rules as documented on ``ResponseHeadParser``, written plainly: the
    /// parser (linear search up to 32 names, a dictionary past that) must agree with it line
    /// by line.
    struct HeadModel {
        var statusCode: Int?
        var httpVersion: String?
        var isComplete = false
        var switchedProtocols = false
        var fields: [(name: String, value: String)] = []
        /// The field the previous line wrote: an obsolete folded line continues that value.
        var lastWritten: Int?

        static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        static func trimmed(_ b: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
            var s = b.startIndex, e = b.endIndex
            while s < e, isSpace(b[s]) { s += 1 }
            while e > s, isSpace(b[e - 1]) { e -= 1 }
            return b[s..<e]
        }
        /// CR, LF and NUL as spaces, then trimmed (RFC 9110 §5.5).
        static func value(_ b: ArraySlice<UInt8>) -> String {
            String(decoding: trimmed(ArraySlice(b.map { $0 == 0x0D || $0 == 0x0A || $0 == 0 ? 0x20 : $0 })), as: UTF8.self)
        }
        static func folded(_ s: String) -> [UInt8] { s.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 } }

        mutating func reset() {
            statusCode = nil; httpVersion = nil; isComplete = false; fields = []; lastWritten = nil
        }

        mutating func consume(_ line: [UInt8]) -> ResponseHeadParser.Event {
            var end = line.count
            while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
            let bytes = line[0..<end]
            let isStatus = bytes.starts(with: Array("HTTP/".utf8))
            if isComplete, !isStatus { return .none }
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
            if isStatus {
                reset()
                let space = bytes.firstIndex(of: 0x20) ?? bytes.endIndex
                httpVersion = String(decoding: bytes[..<space], as: UTF8.self)
                var i = space
                while i < bytes.endIndex, bytes[i] == 0x20 { i += 1 }
                var code = 0, digits = 0
                while i < bytes.endIndex, digits < 3, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                    code = code * 10 + Int(bytes[i] - 0x30); i += 1; digits += 1
                }
                statusCode = digits == 3 ? code : 0
                return .none
            }
            guard statusCode != nil else { return .none }
            if Self.isSpace(bytes[0]) {
                let text = Self.value(bytes)
                if let lastWritten, !text.isEmpty {
                    fields[lastWritten].value += fields[lastWritten].value.isEmpty ? text : " " + text
                }
                return .none
            }
            guard let colon = bytes.firstIndex(of: 0x3A) else { lastWritten = nil; return .none }
            let nameBytes = Self.trimmed(bytes[..<colon])
            guard !nameBytes.isEmpty else { lastWritten = nil; return .none }
            let name = String(decoding: nameBytes, as: UTF8.self)
            let value = Self.value(bytes[(colon + 1)...])
            if let index = fields.firstIndex(where: { Self.folded($0.name) == Self.folded(name) }) {
                if fields[index].value.isEmpty { fields[index].value = value } else if !value.isEmpty { fields[index].value += ", " + value }
                lastWritten = index
            } else {
                fields.append((name, value))
                lastWritten = fields.count - 1
            }
            return .none
        }
    }

    static func lines(_ b: UnsafeRawBufferPointer) -> [[UInt8]] {
        var result: [[UInt8]] = [], current: [UInt8] = []
        for byte in b {
            current.append(byte)
            if byte == 0x0A { result.append(current); current = [] }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    static func feed(_ parser: inout ResponseHeadParser, _ line: [UInt8]) -> ResponseHeadParser.Event {
        line.withUnsafeBytes { parser.consume($0) }
    }

    @Sendable static func responseHead(_ b: UnsafeRawBufferPointer) {
        var parser = ResponseHeadParser()
        var model = HeadModel()
        for line in lines(b) {
            let event = feed(&parser, line)
            let expected = model.consume(line)
            check(event == expected, "event \(event), model \(expected)")
            check(parser.statusCode == model.statusCode && parser.httpVersion == model.httpVersion
                  && parser.isComplete == model.isComplete && parser.switchedProtocols == model.switchedProtocols,
                  "status disagrees with the model")
            check(parser.fields.map(\.name) == model.fields.map(\.name), "names \(parser.fields.map(\.name)) vs model \(model.fields.map(\.name))")
            check(parser.fields.map(\.value) == model.fields.map(\.value), "values \(parser.fields.map(\.value)) vs model \(model.fields.map(\.value))")
        }
        for field in parser.fields { check(parser.value(for: field.name) != nil, "field \(field.name) not found by name") }
        if let length = parser.contentLength { check(length >= 0, "negative Content-Length") }
        _ = parser.isContentEncoded
        // A complete head, written out again, reads as the same head.
        guard parser.isComplete, let code = parser.statusCode, let version = parser.httpVersion else { return }
        var text = version + " " + String(String(code + 1000).suffix(3)) + "\r\n"
        for field in parser.fields { text += field.name + ": " + field.value + "\r\n" }
        text += "\r\n"
        var reparsed = ResponseHeadParser()
        Array(text.utf8).withUnsafeBytes { raw in
            for line in lines(raw) { _ = feed(&reparsed, line) }
        }
        check(reparsed.isComplete && reparsed.statusCode == code && reparsed.httpVersion == version, "re-serialised status differs")
        check(reparsed.fields == parser.fields, "re-serialised fields differ: \(reparsed.fields) vs \(parser.fields)")
    }

    @Sendable static func httpDate(_ b: UnsafeRawBufferPointer) {
        let text = String(decoding: b, as: UTF8.self)
        if let date = HTTPDate.parse(text) {
            let formatted = HTTPDate.format(date)
            check(HTTPDate.parse(formatted) == date, "'\(text)' formats as '\(formatted)', which does not parse back")
        }
        // Any whole second in years 1…9999 formats as an IMF-fixdate that parses back to it.
        guard b.count >= 8 else { return }
        let raw = b.loadUnaligned(as: Int64.self)
        let span: Int64 = 253_402_300_800 + 62_135_596_800   // 0001-01-01 … 9999-12-31, seconds
        let seconds = Int64(-62_135_596_800) + (raw % span + span) % span
        let date = Date(timeIntervalSince1970: Double(seconds))
        let formatted = HTTPDate.format(date)
        check(formatted.utf8.count == 29, "'\(formatted)' is not an IMF-fixdate")
        check(HTTPDate.parse(formatted) == date, "\(seconds) formats as '\(formatted)', which does not parse back")
    }

    /// `text` as a quoted string, every character escaped that could end or break it.
    static func quoted(_ text: Substring) -> String {
        var out = "\""
        for c in text { if c == "\"" || c == "\\" { out.append("\\") }; out.append(c) }
        return out + "\""
    }

    @Sendable static func cacheControl(_ b: UnsafeRawBufferPointer) {
        let header = String(decoding: b, as: UTF8.self)
        let control = CacheControl(header)
        let directives = CacheControl.directives(header)
        if let maxAge = control.maxAge { check(maxAge >= 0 && maxAge <= CacheControl.deltaSecondsLimit, "max-age \(maxAge)") }
        check(!(control.maxAge != nil && control.hasInvalidMaxAge), "max-age both valid and invalid")
        check(control.hasMalformedDirective == directives.contains(where: \.isMalformed), "malformed flag disagrees")
        // Byte-level grammar: only ASCII headers are written back (a combining mark after a
        // quote or comma joins it into one Character, which the writer cannot express).
        guard b.allSatisfy({ $0 >= 0x20 && $0 < 0x7F || $0 == 0x09 }), !control.hasMalformedDirective else { return }
        let written = directives.map { d in d.name + (d.argument.map { "=" + quoted($0) } ?? "") }.joined(separator: ", ")
        let again = CacheControl.directives(written)
        check(again.map(\.name) == directives.map(\.name) && again.map(\.argument) == directives.map(\.argument),
              "'\(header)' written as '\(written)' reads differently")
        check(CacheControl(written) == control, "'\(header)' written as '\(written)' has other flags")
    }

    @Sendable static func vary(_ b: UnsafeRawBufferPointer) {
        let header = String(decoding: b, as: UTF8.self)
        let selecting = HTTPFreshness.selectingVary(header)
        check(selecting == nil || selecting == header, "selectingVary changed the header")
        // The same names in reverse order, upper-cased (ASCII), with other spacing select alike.
        let names = header.split(separator: ",", omittingEmptySubsequences: false).reversed()
        let shuffled = names.map { name in
            " " + String(decoding: name.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self) + "\t"
        }.joined(separator: ",")
        check((HTTPFreshness.selectingVary(shuffled) == nil) == (selecting == nil), "'\(header)' and '\(shuffled)' select differently")
    }

    @Sendable static func urlNormalization(_ b: UnsafeRawBufferPointer) {
        let text = String(decoding: b, as: UTF8.self)
        let encoded = URLNormalization.percentEncoded(text)
        check(URLNormalization.percentEncoded(encoded) == encoded, "encoding '\(text)' twice changes it")
        // Past the scheme and authority, only allowed bytes and whole escapes remain.
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%".utf8)
        let bytes = Array(encoded.utf8)
        if encoded != text {
            let changedFrom = zip(bytes, Array(text.utf8)).prefix(while: { $0 == $1 }).count
            check(bytes[changedFrom...].allSatisfy(allowed.contains), "'\(encoded)' keeps a byte that needs encoding")
        }
        _ = URLNormalization.url(text)
    }
}
