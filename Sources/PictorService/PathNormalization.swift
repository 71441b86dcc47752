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
        } else if let range = firstRange(of: "/plain/", in: path) {
            // The options as sent, even when empty (`//plain/…`): the text must stay the text
            // that was signed, and the parser then names the empty segment.
            let options = Substring(path.unicodeScalars[..<range.lowerBound])
            let plainURL = Substring(path.unicodeScalars[range.upperBound...])
            return colons(options) + "/plain/" + fixScheme(plainURL)
        } else {
            return colons(path)
        }
    }

    /// Where `needle` (ASCII) first occurs in `text`, found by byte. The standard library's
    /// generic `firstRange(of:)` is not specialised for this use and cost a warm request a
    /// tenth of its CPU in type metadata lookups.
    static func firstRange(of needle: StaticString, in text: Substring) -> Range<String.Index>? {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard let first = pattern.first else { return nil }
        let bytes = text.utf8
        var index = bytes.startIndex
        while let candidate = bytes[index...].firstIndex(of: first) {
            if bytes[candidate...].starts(with: pattern) {
                return candidate..<bytes.index(candidate, offsetBy: pattern.count)
            }
            index = bytes.index(after: candidate)
        }
        return nil
    }

    /// `%3A` back to `:`, byte by byte.
    private static func colons(_ text: Substring) -> String {
        let bytes = text.utf8
        // Most paths have no `%`: then the text is the answer (the generic replace costs
        // more than the rest of the path's parse).
        guard bytes.contains(UInt8(ascii: "%")) else { return String(text) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%"), bytes[index...].starts(with: "%3A".utf8) {
                out.append(UInt8(ascii: ":"))
                index = bytes.index(index, offsetBy: 3)
            } else {
                out.append(bytes[index])
                index = bytes.index(after: index)
            }
        }
        return String(decoding: out, as: UTF8.self)
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
