/// One Redis server address: a host name or IP address and a TCP port.
public struct RedisEndpoint: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// A host name or an IP address (IPv6 without brackets).
    public var host: String
    /// The TCP port, `1...65535`; Redis's default is `6379`.
    public var port: Int

    /// An endpoint at `host:port`; the port defaults to Redis's `6379`.
    ///
    /// - Parameters:
    ///   - host: a host name or an IP address.
    ///   - port: the TCP port; `6379` by default.
    public init(host: String, port: Int = 6379) {
        self.host = host
        self.port = port
    }

    /// `host:port`, with an IPv6 host in brackets.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Orders by host, then port, so per-node results come back in a stable order.
    public static func < (lhs: RedisEndpoint, rhs: RedisEndpoint) -> Bool {
        (lhs.host, lhs.port) < (rhs.host, rhs.port)
    }
}
