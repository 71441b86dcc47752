import Foundation

extension RedisConfiguration {
    /// A configuration from a Redis URL, with the default timeouts and limits.
    ///
    /// `redis://[[username]:password@]host[:port][/db]`, where `host[:port]` may be a
    /// comma-separated list of seed nodes (`redis://h1:7000,h2:7001,h3:7002`; the credentials apply
    /// to all). The port defaults to 6379 and the database to 0; an IPv6 host is written in
    /// brackets (`[::1]:6379`); user and password may be percent-encoded.
    ///
    /// Query options (as redis-py and others read them) change the limits:
    /// `connect_timeout` and `command_timeout` (a duration: `250ms`, `2s`, or a number of
    /// seconds), `max_connections` (per node, 1...1024); for example
    /// `redis://cache:6379/0?command_timeout=500ms`.
    ///
    /// - Parameter url: `redis://[[user]:password@]host[:port][/db][?options]`, or comma-separated
    ///   seed nodes of a cluster.
    /// - Throws: ``RedisError/unsupported(_:)`` for `rediss://` (TLS needs hiredis ≥ 1.0);
    ///   ``RedisError/invalidURL(_:)`` for another scheme, an empty host, a port outside
    ///   `1...65535`, a database that is not a non-negative integer, a database other than 0 with
    ///   several seeds, an unknown or malformed query option, or a fragment. No reason quotes
    ///   the password.
    public init(url: String) throws(RedisError) {
        let lower = url.lowercased()
        if lower.hasPrefix("rediss://") {
            throw .unsupported("rediss:// (TLS) needs hiredis ≥ 1.0; Debian 12 ships 0.14")
        }
        guard lower.hasPrefix("redis://") else { throw .invalidURL("the scheme must be redis://") }
        var rest = Substring(url.dropFirst("redis://".count))
        // The query starts after the user information, which ends at the last "@".
        var query: Substring?
        let hostStart = rest.lastIndex(of: "@").map { rest.index(after: $0) } ?? rest.startIndex
        if let mark = rest[hostStart...].firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        if rest[hostStart...].contains("#") || query?.contains("#") == true { throw .invalidURL("fragments are not supported") }

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
        if let query { try applyOptions(query) }
    }

    private mutating func applyOptions(_ query: Substring) throws(RedisError) {
        for item in query.split(separator: "&") {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]), value = parts.count > 1 ? String(parts[1]) : ""
            switch name {
            case "connect_timeout": connectTimeout = try Self.duration(value, option: name)
            case "command_timeout": commandTimeout = try Self.duration(value, option: name)
            case "max_connections":
                guard let count = Int(value), (1...1024).contains(count) else {
                    throw .invalidURL("max_connections must be an integer in 1...1024")
                }
                maximumConnectionsPerNode = count
            default:
                throw .invalidURL("unknown option '\(name)' (expected connect_timeout, command_timeout or max_connections)")
            }
        }
    }

    /// `250ms`, `2s` or `0.5` (seconds); more than 0 and at most 60 s.
    private static func duration(_ text: String, option: String) throws(RedisError) -> Duration {
        var number = Substring(text)
        var scale = 1.0
        if number.hasSuffix("ms") {
            number = number.dropLast(2)
            scale = 0.001
        } else if number.hasSuffix("s") {
            number = number.dropLast()
        }
        guard let value = Double(number), value.isFinite, value * scale > 0, value * scale <= 60 else {
            throw .invalidURL("\(option) must be a duration such as 250ms or 2s (at most 60 s)")
        }
        return .milliseconds(Int((value * scale * 1000).rounded(.up)))
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
