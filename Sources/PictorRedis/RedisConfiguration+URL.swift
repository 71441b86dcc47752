import Foundation

extension RedisConfiguration {
    /// A configuration from a Redis URL, with the default timeouts and limits.
    ///
    /// `redis://[[username]:password@]host[:port][/db]`, where `host[:port]` may be a
    /// comma-separated list of seed nodes (`redis://h1:7000,h2:7001,h3:7002`; the credentials apply
    /// to all). The port defaults to 6379 and the database to 0; an IPv6 host is written in
    /// brackets (`[::1]:6379`); user and password may be percent-encoded.
    ///
    /// - Throws: ``RedisError/unsupported(_:)`` for `rediss://` (TLS needs hiredis ≥ 1.0);
    ///   ``RedisError/invalidURL(_:)`` for another scheme, an empty host, a port outside
    ///   `1...65535`, a database that is not a non-negative integer, a database other than 0 with
    ///   several seeds, or a query string. No reason quotes the password.
    public init(url: String) throws(RedisError) {
        let lower = url.lowercased()
        if lower.hasPrefix("rediss://") {
            throw .unsupported("rediss:// (TLS) needs hiredis ≥ 1.0; Debian 12 ships 0.14")
        }
        guard lower.hasPrefix("redis://") else { throw .invalidURL("the scheme must be redis://") }
        var rest = Substring(url.dropFirst("redis://".count))
        if rest.contains("?") || rest.contains("#") { throw .invalidURL("query strings and fragments are not supported") }

        // The user information ends at the last "@": a raw "@" can only belong to it.
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                username = try Self.decoded(userInfo[..<colon], what: "username")
                password = try Self.decoded(userInfo[userInfo.index(after: colon)...], what: "password")
            } else {
                username = try Self.decoded(userInfo, what: "username")
            }
            if username == "" { username = nil }
        }

        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
            if !path.isEmpty {
                guard path.allSatisfy(\.isASCII), let number = Int(path), number >= 0 else {
                    throw .invalidURL("the database must be a non-negative integer")
                }
                database = number
            }
        }

        let endpoints = try rest.split(separator: ",", omittingEmptySubsequences: false).map(Self.endpoint)
        if endpoints.count > 1 && database != 0 {
            throw .invalidURL("a seed list is for a Redis Cluster, which only has database 0")
        }
        self.init(endpoints: endpoints, username: username, password: password, database: database)
    }

    private static func decoded(_ part: Substring, what: String) throws(RedisError) -> String {
        guard let value = String(part).removingPercentEncoding else {
            throw .invalidURL("the \(what) has a malformed percent-encoding")
        }
        return value
    }

    private static func endpoint(_ text: Substring) throws(RedisError) -> RedisEndpoint {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .invalidURL("an IPv6 host lacks its closing ]") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidURL("unexpected text after an IPv6 host") }
                portText = after.dropFirst()
            }
        } else if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = text
        }
        guard !host.isEmpty else { throw .invalidURL("a host is empty") }
        guard !host.contains(where: { $0 == " " || $0 == "/" || $0 == "@" }) else {
            throw .invalidURL("a host contains a forbidden character")
        }
        var port = 6379
        if let portText {
            guard portText.allSatisfy(\.isASCII), let number = Int(portText), (1...65535).contains(number) else {
                throw .invalidURL("the port of \(host) must be an integer in 1...65535")
            }
            port = number
        }
        return RedisEndpoint(host: String(host), port: port)
    }
}
