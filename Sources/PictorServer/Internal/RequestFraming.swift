import PictorService

/// Refuses a request head whose body two HTTP readers could delimit differently.
///
/// A front (nginx, a CDN, a load balancer) and this server must agree where a request ends, or
/// bytes one of them takes for a body the other takes for a new request: request smuggling.
/// libmicrohttpd reads `Transfer-Encoding: chunked` over `Content-Length` and keeps the
/// connection open, takes the first of two differing lengths, and waits for the end of a body
/// in a coding it cannot decode until the client gives up. So the head is checked here first,
/// as nginx does: both fields, or any doubt about the length, is a 400 (RFC 9112 §6.1, §6.3);
/// a coding other than `chunked` alone is a 501 (§6.1). Either way the connection is closed
/// after the answer, so nothing that follows on it is read as a request.
package enum RequestFraming {
    /// The refusal for a head with these fields, or `nil` when its body is delimited one way.
    /// Field names match in ASCII case only, as libmicrohttpd matches them.
    ///
    /// libmicrohttpd 0.9.75 hands on some heads in a form where the field a front would read is
    /// hidden: whitespace before the colon stays in the name (`Content-Length `), a folded line
    /// (obs-fold) is joined to the name (`Content-Length:` CRLF SP `5` arrives as
    /// `Content-Length5`), and a bare CR inside a value is dropped (`X: a` CR
    /// `Content-Length: 5` arrives as one field `X`). A name that is not a token (RFC 9110
    /// §5.1, RFC 9112 §5.1), a name that begins like a framing field's, or a value that holds a
    /// framing field's name and colon is therefore a 400 too.
    ///
    /// - Parameters:
    ///   - headers: the fields as libmicrohttpd gives them.
    ///   - version: the request line's version (`HTTP/1.1`): an HTTP/1.0 request has no
    ///     chunked coding, so one that names a transfer coding is a 400 (RFC 9112 §6.1).
    package static func refusal(_ headers: [(name: String, value: String)], version: String) -> ServiceResponse? {
        var lengths: [Substring] = []
        var codings: [Substring] = []
        for field in headers {
            if isName(field.name, "content-length") {
                lengths.append(field.value[...])
            } else if isName(field.name, "transfer-encoding") {
                codings += field.value.split(separator: ",", omittingEmptySubsequences: false)
            } else if !isToken(field.name) || hidesFraming(field) {
                return ServerCore.plain(400, "the request has a header field that is not well formed")
            }
        }
        if lengths.isEmpty, codings.isEmpty { return nil }
        if !codings.isEmpty, version == "HTTP/1.0" {
            return ServerCore.plain(400, "an HTTP/1.0 request has Transfer-Encoding")
        }
        if !lengths.isEmpty, !codings.isEmpty {
            return ServerCore.plain(400, "the request has both Transfer-Encoding and Content-Length")
        }
        if !codings.isEmpty {
            guard codings.count == 1, isName(String(trimmed(codings[0])), "chunked") else {
                return ServerCore.plain(501, "the request's Transfer-Encoding is not supported (chunked alone is)")
            }
            return nil
        }
        guard lengths.count == 1, isLength(trimmed(lengths[0])) else {
            return ServerCore.plain(400, "the request's Content-Length is not one decimal number")
        }
        return nil
    }

    /// Whether `name` is an RFC 9110 token: one or more of `!#$%&'*+-.^_`|~`, digits and
    /// ASCII letters.
    private static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                true
            default:
                "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// Whether a field other than the two framing fields carries one: a name that begins with
    /// one's name (a folded line joined to it), or a value with one's name and a colon (a bare
    /// CR dropped before it). By bytes, without copies: this runs for every field of every
    /// request.
    private static func hidesFraming(_ field: (name: String, value: String)) -> Bool {
        if isName(field.name, "content-length", prefixOnly: true) || isName(field.name, "transfer-encoding", prefixOnly: true) { return true }
        // Most values have no colon at all.
        guard field.value.utf8.contains(UInt8(ascii: ":")) else { return false }
        let value = Array(field.value.utf8)
        for start in value.indices where value[start] | 0x20 == UInt8(ascii: "c") || value[start] | 0x20 == UInt8(ascii: "t") {
            for framing: StaticString in ["content-length", "transfer-encoding"] {
                guard var index = matches(value, at: start, framing) else { continue }
                while index < value.count, value[index] == UInt8(ascii: " ") || value[index] == UInt8(ascii: "\t") { index += 1 }
                if index < value.count, value[index] == UInt8(ascii: ":") { return true }
            }
        }
        return false
    }

    /// The index after `lowercase` when `bytes` holds it at `start` in any ASCII case.
    private static func matches(_ bytes: [UInt8], at start: Int, _ lowercase: StaticString) -> Int? {
        let count = lowercase.utf8CodeUnitCount
        guard bytes.count - start >= count else { return nil }
        return lowercase.withUTF8Buffer { expected in
            for offset in 0..<count {
                let byte = bytes[start + offset]
                let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                if folded != expected[offset] { return nil }
            }
            return start + count
        }
    }

    /// Whether `name` is `lowercase` in any ASCII case (a non-ASCII letter never matches), or,
    /// with `prefixOnly`, begins with it.
    private static func isName(_ name: String, _ lowercase: StaticString, prefixOnly: Bool = false) -> Bool {
        let count = name.utf8.count, wanted = lowercase.utf8CodeUnitCount
        guard prefixOnly ? count >= wanted : count == wanted else { return false }
        return lowercase.withUTF8Buffer { expected in
            zip(name.utf8, expected).allSatisfy { byte, want in
                byte == want || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte | 0x20 == want)
            }
        }
    }

    /// The body length a head declares: its one `Content-Length`, when ``refusal(_:version:)``
    /// accepted the head; `nil` for none (or a chunked body).
    package static func declaredLength(_ headers: [(name: String, value: String)]) -> Int? {
        headers.first { isName($0.name, "content-length") }.flatMap { Int(trimmed($0.value[...])) }
    }

    /// 1 to 18 decimal digits: a length that fits in an `Int64`, with no sign, list or base.
    private static func isLength(_ value: Substring) -> Bool {
        (1...18).contains(value.utf8.count) && value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private static func trimmed(_ value: Substring) -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = value.firstIndex(where: { !blank($0) }), let last = value.lastIndex(where: { !blank($0) }) else { return "" }
        return value[first...last]
    }
}
