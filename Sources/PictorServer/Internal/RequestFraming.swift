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
    package static func refusal(_ headers: [(name: String, value: String)]) -> ServiceResponse? {
        var lengths: [Substring] = []
        var codings: [Substring] = []
        for field in headers {
            if isName(field.name, "content-length") {
                lengths.append(field.value[...])
            } else if isName(field.name, "transfer-encoding") {
                codings += field.value.split(separator: ",", omittingEmptySubsequences: false)
            }
        }
        if lengths.isEmpty, codings.isEmpty { return nil }
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

    /// Whether `name` is `lowercase` in any ASCII case (a non-ASCII letter never matches).
    private static func isName(_ name: String, _ lowercase: StaticString) -> Bool {
        guard name.utf8.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            zip(name.utf8, expected).allSatisfy { byte, want in
                byte == want || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte | 0x20 == want)
            }
        }
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
