/// Undoes what browsers, CDNs and proxies do to imgproxy paths on the way (imgproxy's
/// `RedenormalizePath`), before the signature is checked, so that both see the same text.
package enum PathNormalization {
    /// `%3A` back to `:` in the options part; `scheme:/host` back to `scheme://host` at the
    /// start of a plain source URL (`local:/x` to `local:///x`).
    ///
    /// imgproxy looks for `…:/x` anywhere in the plain URL (a greedy `^(\S+):/([^/])`), which
    /// also rewrites a `:/` inside the URL's path; here only a scheme at the start is fixed.
    package static func redenormalize(_ path: Substring) -> String {
        // Bytes and scalars, never Characters, as everywhere in the path's grammar: a combining
        // mark after `/` or `%3A` must not hide it.
        if path.utf8.starts(with: "plain/".utf8) {
            return "plain/" + fixScheme(Substring(path.unicodeScalars.dropFirst(6)))
        } else if let range = path.utf8.firstRange(of: "/plain/".utf8) {
            // The options as sent, even when empty (`//plain/…`): the text must stay the text
            // that was signed, and the parser then names the empty segment.
            let options = Substring(path.unicodeScalars[..<range.lowerBound])
            let plainURL = Substring(path.unicodeScalars[range.upperBound...])
            return colons(options) + "/plain/" + fixScheme(plainURL)
        } else {
            return colons(path)
        }
    }

    /// `%3A` back to `:`, byte by byte.
    private static func colons(_ text: Substring) -> String {
        String(decoding: Array(text.utf8).replacing(Array("%3A".utf8), with: [UInt8(ascii: ":")]), as: UTF8.self)
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
        let scheme = String(Substring(url.unicodeScalars[..<colon]))
        let rest = String(Substring(url.unicodeScalars[url.unicodeScalars.index(colon, offsetBy: 2)...]))  // after ":/"
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
