import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A reply read by ``RedisWire``: RESP2 with text payloads (test keys and values are text).
public enum RedisWireReply: Sendable, Equatable, CustomStringConvertible {
    /// `+OK`, `+PONG`.
    case status(String)
    /// `-ERR …`, without the `-`.
    case error(String)
    /// `:42`.
    case integer(Int)
    /// A bulk string (UTF-8, invalid bytes replaced), `nil` for the null bulk string.
    case bulk(String?)
    /// An array, `nil` for the null array.
    case array([RedisWireReply]?)

    /// The text of a status or bulk reply, else `nil`.
    public var text: String? {
        switch self {
        case .status(let text): text
        case .bulk(let text): text
        default: nil
        }
    }

    /// The reply in redis-cli's spirit, for failure messages.
    public var description: String {
        switch self {
        case .status(let text): text
        case .error(let text): "(error) \(text)"
        case .integer(let value): "(integer) \(value)"
        case .bulk(let text): text.map { "\"\($0)\"" } ?? "(nil)"
        case .array(let elements): elements.map { "[" + $0.map(\.description).joined(separator: ", ") + "]" } ?? "(nil)"
        }
    }
}

/// A tiny blocking RESP client on a raw socket, independent of the code under test: the test
/// servers use it to wait for readiness and to drive a cluster (slot migration, `CLUSTER INFO`).
public enum RedisWire {
    /// Sends one command to `127.0.0.1:port` on a new connection and reads its reply.
    ///
    /// - Parameters:
    ///   - port: the server's port on `127.0.0.1`.
    ///   - arguments: the command and its arguments, for example `["SET", "k", "v"]`.
    ///   - password: sent with `AUTH` first when not `nil`.
    ///   - timeout: for connecting and for each read, in seconds.
    /// - Throws: ``TestServerError/requestFailed(_:)`` when the server cannot be reached, does not
    ///   answer in time or answers something that is not RESP.
    public static func command(port: Int, _ arguments: [String], password: String? = nil,
                               timeout: Double = 5) throws -> RedisWireReply {
        let connection = try Connection(port: port, timeout: timeout)
        defer { close(connection.fd) }
        if let password {
            let auth = try connection.roundTrip(["AUTH", password])
            if case .error(let message) = auth { throw TestServerError.requestFailed("AUTH: \(message)") }
        }
        return try connection.roundTrip(arguments)
    }

    private final class Connection {
        let fd: Int32
        private var buffer: [UInt8] = []
        private var position = 0

        init(port: Int, timeout: Double) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw TestServerError.requestFailed("socket()") }
            var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = UInt16(port).bigEndian
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard rc == 0 else { close(fd); throw TestServerError.requestFailed("connect to port \(port)") }
        }

        func roundTrip(_ arguments: [String]) throws -> RedisWireReply {
            var request = "*\(arguments.count)\r\n"
            for argument in arguments { request += "$\(argument.utf8.count)\r\n\(argument)\r\n" }
            let bytes = Array(request.utf8)
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { throw TestServerError.requestFailed("send") }
                sent += n
            }
            return try reply()
        }

        private func reply() throws -> RedisWireReply {
            let line = try readLine()
            guard let kind = line.first else { throw TestServerError.requestFailed("empty reply line") }
            let rest = String(line.dropFirst())
            switch kind {
            case "+": return .status(rest)
            case "-": return .error(rest)
            case ":":
                guard let value = Int(rest) else { throw TestServerError.requestFailed("bad integer \(rest)") }
                return .integer(value)
            case "$":
                guard let length = Int(rest) else { throw TestServerError.requestFailed("bad bulk length") }
                if length < 0 { return .bulk(nil) }
                let body = try read(length + 2)
                return .bulk(String(decoding: body.prefix(length), as: UTF8.self))
            case "*":
                guard let count = Int(rest) else { throw TestServerError.requestFailed("bad array length") }
                if count < 0 { return .array(nil) }
                return .array(try (0..<count).map { _ in try reply() })
            default:
                throw TestServerError.requestFailed("not RESP: \(line.prefix(40))")
            }
        }

        private func readLine() throws -> String {
            while true {
                if let end = buffer[position...].firstIndex(of: UInt8(ascii: "\n")) {
                    var line = buffer[position..<end]
                    if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                    position = end + 1
                    return String(decoding: line, as: UTF8.self)
                }
                try fill()
            }
        }

        private func read(_ count: Int) throws -> ArraySlice<UInt8> {
            while buffer.count - position < count { try fill() }
            defer { position += count }
            return buffer[position..<(position + count)]
        }

        private func fill() throws {
            if position > 0 {
                buffer.removeFirst(position)
                position = 0
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw TestServerError.requestFailed(n == 0 ? "connection closed" : "recv timed out or failed") }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }
}
