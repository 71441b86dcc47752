import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 client on one TCP connection to `127.0.0.1`, for tests: it writes
/// requests as given and reads responses by their `Content-Length`, so that several requests
/// can be sent on one connection. Loopback only. Use it off the cooperative pool (`offPool`),
/// from one thread at a time.
final class TestHTTPClient: Sendable {
    struct Response: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: Data

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let fd: Int32
    /// Bytes received and not yet read as a response.
    private let received = Mutex(Data())

    /// Connects to `127.0.0.1:port`. A read that waits longer than `hangGuard` seconds fails,
    /// so that a broken server fails the test instead of hanging it.
    init(port: Int, hangGuard: Int = 60) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        fd = try Self.connected(family: AF_INET, to: address, hangGuard: hangGuard, "port \(port)")
    }

    /// Connects to the Unix-domain socket at `path`.
    init(unixPath path: String, hangGuard: Int = 60) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        fd = try Self.connected(family: AF_UNIX, to: address, hangGuard: hangGuard, path)
    }

    /// A socket connected to `address`, or a thrown error with the socket closed.
    ///
    /// Made before `fd` is set, so that a failed connection is closed here once: a class
    /// whose initialiser throws after its stored properties are set is deinitialised, and a
    /// `close` here followed by the one in `deinit` closed the descriptor twice, by then
    /// perhaps another test's new connection (tests run in parallel), which failed with
    /// "Bad file descriptor".
    private static func connected<Address>(family: Int32, to address: Address, hangGuard: Int, _ name: String) throws -> Int32 {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket") }
        var timeout = timeval(tv_sec: hangGuard, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = address
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "connect to \(name): \(reason)")
        }
        return fd
    }

    /// Whether `127.0.0.1:port` accepts a connection now.
    static func accepts(port: Int) -> Bool {
        (try? TestHTTPClient(port: port)) != nil
    }

    deinit { close(fd) }

    /// Shuts the connection down both ways, as a client that hangs up (the descriptor is
    /// closed with the client).
    func hangUp() {
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Sends `GET target` (or another method) with `headers` and reads its response.
    func request(_ target: String, method: String = "GET", headers: [(String, String)] = []) throws -> Response {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        try send(Data((text + "\r\n").utf8))
        return try readResponse(bodyless: method == "HEAD")
    }

    func send(_ data: Data) throws {
        var sent = 0
        while sent < data.count {
            let n = data[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    /// Reads one response; `bodyless` for a `HEAD`'s (its `Content-Length` announces no body).
    func readResponse(bodyless: Bool = false) throws -> Response {
        var buffer = received.withLock { $0 }
        defer { received.withLock { $0 = buffer } }
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil { try fill(&buffer) }
        let split = buffer.range(of: separator)!
        let head = String(decoding: buffer[..<split.lowerBound], as: UTF8.self)
        buffer = Data(buffer[split.upperBound...])
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure(description: "status line of \(head)") }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = Response(status: status, headers: headers, body: Data())
        let length = bodyless || status == 304 ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
        while buffer.count < length { try fill(&buffer) }
        response.body = Data(buffer.prefix(length))
        buffer = Data(buffer.dropFirst(length))
        return response
    }

    /// Whether the server closed the connection (reads until the end; any bytes left are an error).
    func isClosedByServer() throws -> Bool {
        var byte = [UInt8](repeating: 0, count: 1)
        let n = recv(fd, &byte, 1, 0)
        if n == 0 { return true }
        if n < 0 { return errno == ECONNRESET }
        throw Failure(description: "unexpected bytes after the response")
    }

    /// Sends `bytes` one at a time, a byte every `interval` seconds, as a slowloris client does,
    /// until the server closes the connection; `true` when it did, `false` when the bytes ran out
    /// first (or `hangGuard` seconds passed). Bytes the server sends are read and dropped.
    func trickleUntilClosed(_ bytes: Data, interval: Double = 0.2, hangGuard: Double = 60) -> Bool {
        let start = Date()
        var sent = 0
        while Date().timeIntervalSince(start) < hangGuard {
            if sent < bytes.count {
                let n = bytes[sent...].prefix(1).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
                if n < 0 { return true }  // EPIPE or ECONNRESET: closed
                sent += 1
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, Int32(interval * 1000)) > 0 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
                if n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { return true }
            }
        }
        return false
    }

    private func fill(_ buffer: inout Data) throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        guard n > 0 else { throw Failure(description: n == 0 ? "connection closed" : "recv: \(String(cString: strerror(errno)))") }
        buffer.append(contentsOf: chunk[0..<n])
    }
}

extension TestHTTPClient {
    /// One request on a connection of its own.
    static func get(port: Int, _ target: String, method: String = "GET", headers: [(String, String)] = []) throws -> Response {
        try TestHTTPClient(port: port).request(target, method: method, headers: headers)
    }
}

/// Width and height from a JPEG's first start-of-frame segment.
func jpegSize(_ data: Data) -> (width: Int, height: Int)? {
    let bytes = [UInt8](data)
    guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
    var index = 2
    while index + 9 < bytes.count {
        guard bytes[index] == 0xFF else { return nil }
        let marker = bytes[index + 1]
        let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
        if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
            let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
            let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
            return (width, height)
        }
        index += 2 + length
    }
    return nil
}
