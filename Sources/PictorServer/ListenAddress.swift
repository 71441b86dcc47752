/// Where an ``ImageServer`` listens: a TCP host and port, or a Unix-domain socket path.
public enum ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// A TCP address: `host` is a numeric IPv4 or IPv6 address or a name (resolved once, the
    /// first address used), `port` 0...65535, 0 for any free port (read the one chosen from
    /// ``ImageServer/address``).
    case tcp(host: String, port: Int)
    /// A Unix-domain stream socket at `path` (at most 107 bytes). A socket file left there by
    /// an earlier run is replaced; any other file is refused.
    case unix(path: String)

    /// `127.0.0.1:8080`: loopback only, so that nothing is exposed until asked.
    public static let `default` = ListenAddress.tcp(host: "127.0.0.1", port: 8080)

    /// Reads `HOST:PORT`, `[IPV6]:PORT`, `:PORT` (every IPv4 interface, `0.0.0.0`) or
    /// `unix:PATH`.
    ///
    /// - Throws: ``ServerError/Kind/invalidAddress`` naming the text for a missing or
    ///   out-of-range port, an empty Unix path, or an unbracketed IPv6 address.
    public init(parsing text: String) throws(ServerError) {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty else { throw ServerError(.invalidAddress, "invalid listen address '\(text)': empty socket path") }
            self = .unix(path: path)
            return
        }
        guard let colon = text.lastIndex(of: ":") else {
            throw ServerError(.invalidAddress, "invalid listen address '\(text)': expected HOST:PORT or unix:PATH")
        }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw ServerError(.invalidAddress, "invalid listen address '\(text)': the port must be 0...65535")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            throw ServerError(.invalidAddress, "invalid listen address '\(text)': write an IPv6 address in brackets, [::1]:8080")
        }
        self = .tcp(host: host.isEmpty ? "0.0.0.0" : host, port: port)
    }

    /// `127.0.0.1:8080`, `[::1]:8080` or `unix:/run/pictor.sock`.
    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }
}
