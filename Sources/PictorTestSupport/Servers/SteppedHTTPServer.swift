import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-body HTTP/1.1 server on `127.0.0.1` that sends its body in pieces and pauses between
/// them until the test says to go on: for what a client does with part of a download
/// (previews of a progressive JPEG at its scan boundaries). Every GET, whatever its path, gets
/// `200`, a `Content-Length`, `Content-Type: image/jpeg`, `Cache-Control: max-age=3600`, then
/// the pieces; before each piece after the first, `pause` is called on the server's own
/// thread (it may block: it never runs on Swift's cooperative pool) with the number of pieces
/// already sent. Connections are served one after another, then closed.
///
/// ```swift
/// let server = try SteppedHTTPServer(pieces: pieces) { sent in semaphore.wait() }
/// defer { server.stop() }
/// let url = server.url(path: "/a.jpg")
/// ```
public final class SteppedHTTPServer: Sendable {
    /// The port the server listens on (`127.0.0.1`).
    public let port: Int
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    /// Requests answered so far.
    private let served = Atomic<Int>(0)

    /// Starts the server on a free port; it serves until ``stop()``.
    ///
    /// - Parameters:
    ///   - pieces: the body, cut where the pauses go.
    ///   - pause: called before each piece after the first with the number of pieces sent; a
    ///     blocking wait is fine (the server's thread).
    /// - Throws: ``TestServerError/failedToStart(_:)``.
    public init(pieces: [Data], pause: @escaping @Sendable (Int) -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestServerError.failedToStart("socket() failed") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            close(fd)
            throw TestServerError.failedToStart("bind() or listen() failed")
        }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        port = Int(UInt16(bigEndian: addr.sin_port))
        listener = fd
        let total = pieces.reduce(0) { $0 + $1.count }
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { if errno == EINTR { continue } else { return } }
                serve(client, pieces: pieces, total: total, pause: pause)
                close(client)
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Requests answered so far.
    public var requestCount: Int { served.load(ordering: .relaxed) }

    /// Stops accepting connections (a body in flight is cut).
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    private func serve(_ client: Int32, pieces: [Data], total: Int, pause: @Sendable (Int) -> Void) {
        // The request head, up to its blank line (bounded).
        var head = [UInt8]()
        var byte: UInt8 = 0
        while head.count < 65536, recv(client, &byte, 1, 0) == 1 {
            head.append(byte)
            if head.suffix(4) == [13, 10, 13, 10] { break }
        }
        guard head.suffix(4) == [13, 10, 13, 10] else { return }
        served.add(1, ordering: .relaxed)
        let response = "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: \(total)\r\n"
            + "Cache-Control: max-age=3600\r\nConnection: close\r\n\r\n"
        guard write(Data(response.utf8), to: client) else { return }
        for (index, piece) in pieces.enumerated() {
            if index > 0 { pause(index) }
            guard write(piece, to: client) else { return }
        }
    }

    private func write(_ data: Data, to client: Int32) -> Bool {
        data.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = send(client, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                sent += n
            }
            return true
        }
    }
}
