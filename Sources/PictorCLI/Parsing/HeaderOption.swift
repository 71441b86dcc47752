import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `-H 'Name: value'` (repeatable, as curl takes it): request headers sent with every image
/// request (and on redirects to the same host; `Authorization` and `Cookie` are dropped when a
/// redirect leaves the host). Headers do not enter the cache key: two runs with different
/// headers share cached images, as in a browser.
enum HeaderOption {
    /// Sets `headers` on `request` as curl sends them: a repeated name adds a value (`Cookie`
    /// values joined with `; `, RFC 6265 §5.4; others with `, `, RFC 9110 §5.3), and a name with
    /// an empty value (`-H 'Accept:'`) sends no such header.
    static func apply(_ headers: [(name: String, value: String)], to request: inout URLRequest) {
        for header in headers {
            if header.value.isEmpty {
                request.setValue(nil, forHTTPHeaderField: header.name)
            } else if header.name.lowercased() == "cookie", let earlier = request.value(forHTTPHeaderField: header.name) {
                request.setValue(earlier + "; " + header.value, forHTTPHeaderField: header.name)
            } else {
                request.addValue(header.value, forHTTPHeaderField: header.name)
            }
        }
    }

    /// The headers, in order.
    /// - Throws: ``CLIError/usage(_:)`` for a header without a name, with a name that is not an
    ///   HTTP token, or with a line break.
    static func parse(_ parser: inout ArgumentParser) throws -> [(name: String, value: String)] {
        try parser.options(.header).map { text in
            guard let colon = text.firstIndex(of: ":") else {
                throw CLIError.usage("invalid header '\(text)' for '-H': expected 'Name: value'")
            }
            let name = String(text[..<colon])
            let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(token.contains) else {
                throw CLIError.usage("invalid header name '\(name)' for '-H': expected a token such as 'Authorization'")
            }
            guard !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else {
                throw CLIError.usage("invalid header '\(name)' for '-H': a value cannot contain a line break")
            }
            return (name, value)
        }
    }
}
