/// Where the Redis client behind a ``RedisSharedCache`` connects and how long it waits.
///
/// Build one from a URL with ``init(url:)`` (`redis://:secret@cache-1:6379/0`, or a comma-separated
/// seed list for a cluster) or member by member. Whether the servers form a Redis Cluster is
/// detected on first use, not configured.
///
/// The password is never part of ``description``, ``debugDescription``, a mirror or an error.
public struct RedisConfiguration: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The node (single server) or seed nodes (cluster) to connect to; at least one. In cluster
    /// mode the other nodes are learnt from `CLUSTER SLOTS`; seeds are tried in order.
    public var endpoints: [RedisEndpoint]
    /// The ACL user for `AUTH` (Redis 6+); `nil` authenticates as `default`. Only used with a
    /// password.
    public var username: String?
    /// The password for `AUTH`; `nil` sends no `AUTH`.
    public var password: String?
    /// The database selected with `SELECT` on every connection; `0` by default. Redis Cluster
    /// only has database 0.
    public var database: Int
    /// How long establishing a TCP connection may take; 50 ms by default (a cache tier on the
    /// local network; a slower cache is worse than none).
    public var connectTimeout: Duration
    /// How long a command (or a whole pipeline, per socket read/write) may wait for the
    /// server; 200 ms by default. A connection that timed out is discarded.
    public var commandTimeout: Duration
    /// At most this many connections per node are in use at once; further callers wait for
    /// one to be returned. 4 by default.
    public var maximumConnectionsPerNode: Int
    /// After a failed connect, further connects to that node fail at once (with
    /// ``RedisError/connectionFailed(endpoint:reason:)``) for this long; 50 ms by default,
    /// doubled after each further failure up to ``reconnectMaximumDelay``.
    public var reconnectInitialDelay: Duration
    /// The ceiling of the doubling reconnect backoff; 2 s by default.
    public var reconnectMaximumDelay: Duration

    /// A configuration for `endpoints` with the default timeouts and limits.
    ///
    /// - Parameters:
    ///   - endpoints: the server, or the cluster's seed nodes; at least one.
    ///   - username: the ACL user (with `password`), `nil` for `default`.
    ///   - password: the `AUTH` password, `nil` for none.
    ///   - database: the database to `SELECT`, `0` by default.
    public init(endpoints: [RedisEndpoint], username: String? = nil, password: String? = nil, database: Int = 0) {
        self.endpoints = endpoints
        self.username = username
        self.password = password
        self.database = database
        connectTimeout = .milliseconds(50)
        commandTimeout = .milliseconds(200)
        maximumConnectionsPerNode = 4
        reconnectInitialDelay = .milliseconds(50)
        reconnectMaximumDelay = .seconds(2)
    }

    /// The endpoints, user, database and timeouts; the password shows as `<redacted>`.
    public var description: String {
        let user = username.map { "user=\($0) " } ?? ""
        let password = password == nil ? "" : "password=<redacted> "
        return "RedisConfiguration(\(endpoints.map(\.description).joined(separator: ",")) \(user)\(password)"
            + "db=\(database) connectTimeout=\(connectTimeout) commandTimeout=\(commandTimeout) "
            + "maximumConnectionsPerNode=\(maximumConnectionsPerNode))"
    }

    /// Same as ``description``: `debugPrint` and string interpolation must not leak the password.
    public var debugDescription: String { description }

    /// A mirror without the password, so `dump` and debuggers do not show it.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "endpoints": endpoints, "username": username as Any, "password": password == nil ? "nil" : "<redacted>",
            "database": database, "connectTimeout": connectTimeout, "commandTimeout": commandTimeout,
            "maximumConnectionsPerNode": maximumConnectionsPerNode,
        ])
    }
}
