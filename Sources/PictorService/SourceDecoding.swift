/// The source part of a path (the segments after the options) decoded as imgproxy's
/// `DecodeURL` does: `plain/…` percent-decoded with an optional `@extension`, anything else
/// base64url with the segments joined and an optional `.extension`.
enum SourceDecoding {
    static func decode(_ parts: ArraySlice<Substring>) throws(ServiceError) -> (source: SourceURL, extension: Substring?) {
        guard let first = parts.first, !(parts.count == 1 && first.isEmpty) else {
            throw ServiceError(.invalidSource, reason: "the source URL is missing")
        }
        if first == "plain", parts.count > 1 {
            return try plain(parts.dropFirst().joined(separator: "/"))
        }
        return try base64(parts.joined())
    }

    private static func plain(_ encoded: String) throws(ServiceError) -> (source: SourceURL, extension: Substring?) {
        let (body, ext) = try splitExtension(encoded[...], at: "@")
        // imgproxy's plain URLs need an `@` of the URL itself (user info, a path) encoded as
        // `%40`; what follows an unencoded one is part of the URL, never echoed as a format.
        if let ext, !ext.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            throw ServiceError(.invalidSource, reason: "the plain source URL has an '@' that is not an extension: encode an '@' of the URL as %40")
        }
        guard let bytes = percentDecode(body.utf8) else {
            throw ServiceError(.invalidSource, reason: "invalid percent-encoding in the plain source URL")
        }
        return (SourceURL(url: try text(bytes), encoding: .plain), ext)
    }

    private static func base64(_ encoded: String) throws(ServiceError) -> (source: SourceURL, extension: Substring?) {
        let (body, ext) = try splitExtension(encoded[...], at: ".")
        guard let bytes = Base64URL.decode(body.utf8) else {
            throw ServiceError(.invalidSource, reason: "invalid URL-safe base64 in the source URL")
        }
        return (SourceURL(url: try text(bytes), encoding: .base64), ext)
    }

    /// `body` and the extension after `separator` (`nil` when absent or empty); refuses an
    /// empty body and more than one separator.
    private static func splitExtension(_ encoded: Substring, at separator: Unicode.Scalar) throws(ServiceError) -> (Substring, Substring?) {
        // Split among scalars, as the path is: a combining mark must not hide the separator.
        let pieces = encoded.unicodeScalars.split(separator: separator, maxSplits: 2, omittingEmptySubsequences: false)
            .map(Substring.init)
        guard pieces.count <= 2 else {
            throw ServiceError(.invalidSource, reason: "the source URL has more than one '\(separator)' extension")
        }
        guard !pieces[0].isEmpty else { throw ServiceError(.invalidSource, reason: "the source URL is empty") }
        let ext = pieces.count == 2 && !pieces[1].isEmpty ? pieces[1] : nil
        return (pieces[0], ext)
    }

    /// Go's `url.PathUnescape`: every `%` followed by two hex digits, `+` left alone.
    static func percentDecode(_ text: Substring.UTF8View) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: "%") {
                let high = text.index(after: index)
                guard high < text.endIndex, text.index(after: high) < text.endIndex,
                      let h = ArgumentParsing.hexValue(text[high]),
                      let l = ArgumentParsing.hexValue(text[text.index(after: high)])
                else { return nil }
                out.append(h << 4 | l)
                index = text.index(high, offsetBy: 2)
            } else {
                out.append(byte)
                index = text.index(after: index)
            }
        }
        return out
    }

    private static func text(_ bytes: [UInt8]) throws(ServiceError) -> String {
        guard !bytes.isEmpty else { throw ServiceError(.invalidSource, reason: "the source URL is empty") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ServiceError(.invalidSource, reason: "the source URL is not valid UTF-8")
        }
        return text
    }
}
