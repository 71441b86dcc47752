import Foundation

/// Why a Redis operation failed.
///
/// Error *replies* (`-ERR …`, `-OOM …`, `-WRONGTYPE …`) are not errors of this type: the client
/// returns them as error replies, so that one failed command of a pipeline does not
/// hide the others. Descriptions never contain the password.
///
/// A struct rather than an enum, so that a new kind of failure is not a breaking change: match
/// with `==` against a static member (`error == .timeout`), or switch over ``kind`` with a
/// `default:` branch, and read the details from ``endpoint`` and ``detail``.
public struct RedisError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The kind of failure, without its details: the value to `switch` over (with a `default:`
    /// branch, since kinds may be added).
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kind's name, e.g. `"connectionFailed"`.
        public let description: String
        private init(_ description: String) { self.description = description }

        /// ``RedisError/invalidURL(_:)``.
        public static let invalidURL = Kind("invalidURL")
        /// ``RedisError/unsupported(_:)``.
        public static let unsupported = Kind("unsupported")
        /// ``RedisError/connectionFailed(endpoint:reason:)``.
        public static let connectionFailed = Kind("connectionFailed")
        /// ``RedisError/timeout``.
        public static let timeout = Kind("timeout")
        /// ``RedisError/connectionLost``.
        public static let connectionLost = Kind("connectionLost")
        /// ``RedisError/protocolError(_:)``.
        public static let protocolError = Kind("protocolError")
        /// ``RedisError/server(_:)``.
        public static let server = Kind("server")
        /// ``RedisError/clusterDown(_:)``.
        public static let clusterDown = Kind("clusterDown")
        /// ``RedisError/tooManyRedirections``.
        public static let tooManyRedirections = Kind("tooManyRedirections")
    }

    /// The failure and its details; private so that a new kind is not a breaking change.
    private enum Code: Sendable, Equatable {
        case invalidURL(String)
        case unsupported(String)
        case connectionFailed(endpoint: RedisEndpoint, reason: String)
        case timeout
        case connectionLost
        case protocolError(String)
        case server(String)
        case clusterDown(String)
        case tooManyRedirections
    }

    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// The configuration URL is malformed; the reason names the part at fault (never the password).
    public static func invalidURL(_ reason: String) -> RedisError { .init(.invalidURL(reason)) }
    /// A feature this build cannot offer, e.g. TLS (`rediss://`) with Debian 12's hiredis 0.14.
    public static func unsupported(_ feature: String) -> RedisError { .init(.unsupported(feature)) }
    /// No usable connection to `endpoint`: refused, unreachable, connect timed out, the
    /// connection's `AUTH`/`SELECT` was refused, or the node is still in its reconnect backoff
    /// after such a failure. The command was not sent.
    public static func connectionFailed(endpoint: RedisEndpoint, reason: String) -> RedisError {
        .init(.connectionFailed(endpoint: endpoint, reason: reason))
    }
    /// No reply within the command timeout. The command may or may not have run; the
    /// connection was discarded.
    public static let timeout = RedisError(.timeout)
    /// The connection broke while the command was sent or its reply read; the command may or
    /// may not have run.
    public static let connectionLost = RedisError(.connectionLost)
    /// The peer does not speak RESP (for example it is an HTTP server), or its reply is
    /// malformed.
    public static func protocolError(_ detail: String) -> RedisError { .init(.protocolError(detail)) }
    /// An error reply that the operation treats as a failure (for example to topology
    /// discovery's `CLUSTER SLOTS`).
    public static func server(_ message: String) -> RedisError { .init(.server(message)) }
    /// The cluster answered `CLUSTERDOWN` (some slots are not served).
    public static func clusterDown(_ message: String) -> RedisError { .init(.clusterDown(message)) }
    /// A command was redirected (`MOVED`, `ASK`, `TRYAGAIN`, failed node) more than 5 times.
    public static let tooManyRedirections = RedisError(.tooManyRedirections)

    /// The kind of failure, without its details.
    public var kind: Kind {
        switch code {
        case .invalidURL: .invalidURL
        case .unsupported: .unsupported
        case .connectionFailed: .connectionFailed
        case .timeout: .timeout
        case .connectionLost: .connectionLost
        case .protocolError: .protocolError
        case .server: .server
        case .clusterDown: .clusterDown
        case .tooManyRedirections: .tooManyRedirections
        }
    }

    /// The node that could not be reached, for ``Kind/connectionFailed``; `nil` otherwise.
    public var endpoint: RedisEndpoint? {
        if case .connectionFailed(let endpoint, _) = code { return endpoint }
        return nil
    }

    /// The text the failure carries: the part of the URL at fault (``Kind/invalidURL``), the
    /// feature (``Kind/unsupported``), why the connection failed (``Kind/connectionFailed``),
    /// the protocol fault (``Kind/protocolError``), or the server's reply (``Kind/server``,
    /// ``Kind/clusterDown``); `nil` for the kinds without one.
    public var detail: String? {
        switch code {
        case .invalidURL(let text), .unsupported(let text), .connectionFailed(_, let text), .protocolError(let text),
             .server(let text), .clusterDown(let text):
            text
        case .timeout, .connectionLost, .tooManyRedirections: nil
        }
    }

    /// A one-line explanation for logs.
    public var description: String {
        switch code {
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

    /// The same text as ``description``, so that `localizedDescription` logs it.
    public var errorDescription: String? { description }

    /// Whether `value` is this error: lets `catch RedisError.timeout` match an error thrown as
    /// `any Error`, as it did when the type was an enum.
    public static func ~= (pattern: RedisError, value: any Swift.Error) -> Bool { (value as? RedisError) == pattern }
}
