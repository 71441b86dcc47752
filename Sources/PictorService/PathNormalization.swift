/// Undoes what browsers, CDNs and proxies do to imgproxy paths on the way (imgproxy's
/// `RedenormalizePath`), before the signature is checked, so that both see the same text.
enum PathNormalization {
    /// `%3A` back to `:` in the options part; `scheme:/host` back to `scheme://host` at the
    /// start of a plain source URL (`local:/x` to `local:///x`).
    ///
    /// imgproxy looks for `…:/x` anywhere in the plain URL (a greedy `^(\S+):/([^/])`), which
    /// also rewrites a `:/` inside the URL's path; here only a scheme at the start is fixed.
    static func redenormalize(_ path: Substring) -> String {
        let options: Substring
        let plainURL: Substring
        if path.hasPrefix("plain/") {
            options = path[path.startIndex..<path.startIndex]
            plainURL = path.dropFirst(6)
        } else if let range = path.firstRange(of: "/plain/") {
            options = path[..<range.lowerBound]
            plainURL = path[range.upperBound...]
        } else {
            return String(path.replacing("%3A", with: ":"))
        }
        let fixedOptions = String(options.replacing("%3A", with: ":"))
        let fixedURL = fixScheme(plainURL)
        return fixedOptions.isEmpty ? "plain/" + fixedURL : fixedOptions + "/plain/" + fixedURL
    }

    private static func fixScheme(_ url: Substring) -> String {
        let bytes = url.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > bytes.startIndex,
              bytes[bytes.startIndex..<colon].allSatisfy(isSchemeByte)
        else { return String(url) }
        let afterColon = bytes[bytes.index(after: colon)...]
        guard afterColon.first == UInt8(ascii: "/"), afterColon.dropFirst().first.map({ $0 != UInt8(ascii: "/") }) == true else {
            return String(url)
        }
        let scheme = String(url[..<colon])
        let rest = String(url[url.index(after: colon)...].dropFirst())  // after ":/"
        return scheme + (scheme == "local" ? ":///" : "://") + rest
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }
}
