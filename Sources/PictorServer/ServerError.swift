import Foundation

/// Why an ``ImageServer`` could not start: the address, the socket, or libmicrohttpd.
public struct ServerError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// What went wrong; match on it rather than on ``message``.
    public enum Kind: Sendable, Hashable {
        /// The listen address does not parse (``ListenAddress/init(parsing:)``), or its host
        /// does not resolve.
        case invalidAddress
        /// The socket could not be created, bound or put in listening mode (address in use,
        /// permission denied, a Unix socket path that exists and is not a socket).
        case cannotListen
        /// libmicrohttpd refused to start its daemon on the socket.
        case daemonFailed
        /// A ``ImageServer/Configuration`` value is out of its range (named in the message).
        case invalidConfiguration
    }

    /// What went wrong.
    public let kind: Kind
    /// One line for people, e.g. `cannot listen on 127.0.0.1:8080: Address already in use`.
    public let message: String

    /// An error of `kind` saying `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The ``message``.
    public var description: String { message }

    /// The ``description``, so that `localizedDescription` logs the message.
    public var errorDescription: String? { description }
}
