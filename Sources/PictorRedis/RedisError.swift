/// Why a Redis operation failed.
///
/// Error *replies* (`-ERR …`, `-OOM …`, `-WRONGTYPE …`) are not errors of this type: the client
/// returns them as error replies, so that one failed command of a pipeline does not
/// hide the others. Descriptions never contain the password.
public enum RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration URL is malformed; the reason names the part at fault (never the password).
    case invalidURL(String)
    /// A feature this build cannot offer, e.g. TLS (`rediss://`) with Debian 12's hiredis 0.14.
    case unsupported(String)
    /// No usable connection to `endpoint`: refused, unreachable, connect timed out, the
    /// connection's `AUTH`/`SELECT` was refused, or the node is still in its reconnect backoff
    /// after such a failure. The command was not sent.
    case connectionFailed(endpoint: RedisEndpoint, reason: String)
    /// No reply within the command timeout. The command may or may not have run; the
    /// connection was discarded.
    case timeout
    /// The connection broke while the command was sent or its reply read; the command may or
    /// may not have run.
    case connectionLost
    /// The peer does not speak RESP (for example it is an HTTP server), or its reply is
    /// malformed.
    case protocolError(String)
    /// An error reply that the operation treats as a failure (for example to topology
    /// discovery's `CLUSTER SLOTS`).
    case server(String)
    /// The cluster answered `CLUSTERDOWN` (some slots are not served).
    case clusterDown(String)
    /// A command was redirected (`MOVED`, `ASK`, `TRYAGAIN`, failed node) more than 5 times.
    case tooManyRedirections

    /// A one-line explanation for logs.
    public var description: String {
        switch self {
        case .invalidURL(let reason): "invalid Redis URL: \(reason)"
        case .unsupported(let what): "unsupported: \(what)"
        case .connectionFailed(let endpoint, let reason): "cannot connect to Redis at \(endpoint): \(reason)"
        case .timeout: "Redis command timed out"
        case .connectionLost: "connection to Redis lost"
        case .protocolError(let detail): "Redis protocol error: \(detail)"
        case .server(let message): "Redis error reply: \(message)"
        case .clusterDown(let message): "Redis cluster is down: \(message)"
        case .tooManyRedirections: "Redis cluster redirected the command too many times"
        }
    }
}
