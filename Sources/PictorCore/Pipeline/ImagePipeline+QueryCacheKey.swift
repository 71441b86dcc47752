import Foundation

extension ImagePipeline.Configuration {
    /// A cache-key hook for ``cacheKey``: the request URL's `absoluteString`, as
    /// ``urlCacheKey`` gives it, with the query parameters `names` names left out. URLs that
    /// differ only in those parameters then share one entry in every cache (memory, disk,
    /// shared tier) and one download at a time, while each request still sends its whole URL.
    ///
    /// Meant for presigned URLs, whose signature and expiry change on every signing of the same
    /// object: Amazon S3's `X-Amz-Signature`, `X-Amz-Date`, `X-Amz-Credential`,
    /// `X-Amz-Expires`, `X-Amz-Security-Token` (or `X-Amz-*` for all of them), CloudFront's
    /// `Expires`, `Signature`, `Key-Pair-Id` and `Policy`, Google Cloud Storage's `X-Goog-*`.
    ///
    /// ```swift
    /// configuration.cacheKey = ImagePipeline.Configuration.urlCacheKey(
    ///     ignoringQueryParameters: ["X-Amz-*", "Expires", "Signature", "Key-Pair-Id"])
    /// // https://b.s3.amazonaws.com/a.jpg?v=2&X-Amz-Date=20250101T000000Z&X-Amz-Signature=9f…
    /// //   has the key https://b.s3.amazonaws.com/a.jpg?v=2
    /// ```
    ///
    /// - Parameter names: the names of the parameters to leave out. A name ending in `*` is a
    ///   prefix: `X-Amz-*` matches every name that starts with `X-Amz-`, and `*` alone every
    ///   parameter (the whole query); a `*` anywhere else is an ordinary character. An empty
    ///   name matches nothing. Names are compared exactly, byte for byte: case-sensitive, as
    ///   S3 signs them (`x-amz-signature` is another parameter), and with no Unicode
    ///   normalisation. Each parameter's name in the URL is percent-decoded before it is
    ///   compared (`X%2DAmz%2DDate` is `X-Amz-Date`; a `+` stays a `+`), so write the names
    ///   decoded. An empty list gives ``urlCacheKey``'s keys.
    /// - Returns: the hook. The query is the text between the first `?` and the fragment's `#`,
    ///   split at `&` (`;` is not a separator); a parameter's name is the text before its first
    ///   `=`, or all of it. The key is the URL without the matching parameters and their `&`;
    ///   everything else is kept byte for byte, in its order: the other parameters as they were
    ///   spelled (escapes, `+`, repeated and empty ones), the fragment, and a URL in which no
    ///   name matches is its `absoluteString` unchanged. When every parameter is left out, the
    ///   `?` goes too, so the key is the URL's key without a query. An empty string for a
    ///   request without a URL.
    public static func urlCacheKey(ignoringQueryParameters names: [String]) -> @Sendable (ImageRequest) -> String {
        let ignored = IgnoredQueryParameters(names)
        guard !ignored.isEmpty else { return urlCacheKey }
        return { request in
            guard let url = request.url else { return "" }
            return ignored.key(for: url.absoluteString)
        }
    }
}

/// Query parameter names (and name prefixes) left out of a URL's cache key:
/// ``ImagePipeline/Configuration/urlCacheKey(ignoringQueryParameters:)``'s rules.
struct IgnoredQueryParameters: Sendable {
    /// Names matched whole, as UTF-8 bytes: `String`'s own `==` would compare Unicode
    /// canonical equivalence, and cache keys are bytes.
    private let names: Set<[UInt8]>
    /// Name prefixes (a name ending in `*`, without it).
    private let prefixes: [[UInt8]]

    init(_ patterns: [String]) {
        var names: Set<[UInt8]> = []
        var prefixes: [[UInt8]] = []
        for pattern in patterns where !pattern.isEmpty {
            var bytes = Array(pattern.utf8)
            if bytes.last == UInt8(ascii: "*") {
                bytes.removeLast()
                prefixes.append(bytes)
            } else {
                names.insert(bytes)
            }
        }
        self.names = names
        self.prefixes = prefixes
    }

    /// Whether no parameter is ever left out.
    var isEmpty: Bool { names.isEmpty && prefixes.isEmpty }

    /// Whether a parameter named `name` (as spelled in the URL, still percent-encoded) is left out.
    func matches<Name: Collection<UInt8>>(_ name: Name) -> Bool {
        let decoded = Self.percentDecoded(name)
        return names.contains(decoded) || prefixes.contains { decoded.starts(with: $0) }
    }

    /// `url` without the parameters this leaves out (see
    /// ``ImagePipeline/Configuration/urlCacheKey(ignoringQueryParameters:)``).
    func key(for url: String) -> String {
        let bytes = Array(url.utf8)
        guard let question = bytes.firstIndex(of: UInt8(ascii: "?")) else { return url }
        let fragment = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        // A `?` after the `#` is part of the fragment: there is no query.
        guard question < fragment else { return url }
        let query = bytes[(question + 1)..<fragment]
        var kept: [ArraySlice<UInt8>] = []
        var removed = false
        for parameter in query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
            let name = parameter.prefix { $0 != UInt8(ascii: "=") }
            if matches(name) { removed = true } else { kept.append(parameter) }
        }
        guard removed else { return url }
        var key = Array(bytes[..<question])
        key.reserveCapacity(bytes.count)
        if !kept.isEmpty {
            key.append(UInt8(ascii: "?"))
            for (index, parameter) in kept.enumerated() {
                if index > 0 { key.append(UInt8(ascii: "&")) }
                key.append(contentsOf: parameter)
            }
        }
        key.append(contentsOf: bytes[fragment...])
        return String(decoding: key, as: UTF8.self)
    }

    /// `name` with each `%` and two hex digits replaced by the byte they stand for; any other
    /// `%` is kept.
    static func percentDecoded<Name: Collection<UInt8>>(_ name: Name) -> [UInt8] {
        func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        let bytes = Array(name)
        guard bytes.contains(UInt8(ascii: "%")) else { return bytes }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return decoded
    }
}
