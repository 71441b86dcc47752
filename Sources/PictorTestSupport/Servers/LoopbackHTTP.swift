import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tiny blocking helpers on POSIX sockets for the test servers: free ports, readiness checks
/// and one-shot HTTP/1.0 GETs to control endpoints. Loopback (`127.0.0.1`) only.
public enum LoopbackHTTP {
    /// A TCP port that was free a moment ago (bound to port 0, read back, closed).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestServerError.failedToStart("socket() failed") }
        defer { close(fd) }
        var addr = loopback(port: 0)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw TestServerError.failedToStart("bind() failed") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Whether something accepts TCP connections on `127.0.0.1:port`.
    static func isListening(port: Int) -> Bool {
        guard let fd = connected(port: port) else { return false }
        close(fd)
        return true
    }

    /// Waits (polling every 10 ms) until `port` accepts connections or `timeout` seconds pass.
    static func waitUntilListening(port: Int, timeout: Double, while alive: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if isListening(port: port) { return true }
            if !alive() { return false }
            usleep(10_000)
        }
        return false
    }

    /// Sends `GET path HTTP/1.0` to `127.0.0.1:port` and returns the status and body.
    static func get(port: Int, path: String) throws -> (status: Int, body: Data) {
        guard let fd = connected(port: port) else { throw TestServerError.requestFailed("connect to port \(port)") }
        defer { close(fd) }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw TestServerError.requestFailed("send") }
            sent += n
        }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { throw TestServerError.requestFailed("recv") }
            if n == 0 { break }
            response.append(contentsOf: buffer[0..<n])
        }
        guard let split = response.range(of: Data("\r\n\r\n".utf8)),
              let head = String(data: response[..<split.lowerBound], encoding: .utf8),
              let statusText = head.split(separator: " ").dropFirst().first, let status = Int(statusText)
        else { throw TestServerError.requestFailed("malformed response") }
        return (status, Data(response[split.upperBound...]))
    }

    /// The absolute path of `program` on `PATH` (or the usual system directories), if any.
    static func which(_ program: String) -> String? {
        if program.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let dirs = path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin"]
        for dir in dirs where FileManager.default.isExecutableFile(atPath: dir + "/" + program) {
            return dir + "/" + program
        }
        return nil
    }

    /// Kills `process` with SIGKILL and waits for it. SIGTERM is not enough: a child spawned
    /// from a test process may inherit a signal mask that blocks it.
    ///
    /// It is reaped here with `waitpid` rather than with Foundation's `waitUntilExit()`, which
    /// on Linux was seen to wait forever for a child already dead (a zombie) while a whole
    /// suite ran: two tests stuck there held both cooperative threads and stalled every other
    /// test. Each process is killed and reaped once, so a PID the system reused is never hit.
    public static func kill(_ process: Process) {
        let pid = process.processIdentifier
        guard pid > 0, reaped.withLock({ $0.insert(pid).inserted }) else { return }
        if process.isRunning { _ = Glibc.kill(pid, SIGKILL) }
        var status: Int32 = 0
        // ECHILD: Foundation reaped it first; either way it is gone.
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
    }

    /// Waits for `process` to end and returns its exit status (for a process killed by a signal:
    /// 128 + the signal number, as a shell reports it).
    ///
    /// Use it in place of Foundation's `waitUntilExit()` and `terminationStatus`, which on Linux
    /// were seen to wait forever for a child already dead (see ``kill(_:)``): it polls both
    /// Foundation's view and `waitpid`, so whichever of the two reaps the child first, it
    /// returns. Call ``kill(_:)`` rather than this to stop a process.
    public static func waitForExit(_ process: Process) -> Int32 {
        let pid = process.processIdentifier
        while true {
            if !process.isRunning { return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus }
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                _ = self.reaped.withLock { $0.insert(pid) }
                let signal = status & 0x7f
                return signal == 0 ? (status >> 8) & 0xff : 128 + signal
            }
            // 0: still running; -1 (ECHILD): Foundation reaped it and is about to say so.
            usleep(2_000)
        }
    }

    /// Processes killed and reaped by ``kill(_:)``.
    private static let reaped = Mutex<Set<Int32>>([])

    private static func loopback(port: Int) -> sockaddr_in {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return addr
    }

    private static func connected(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var addr = loopback(port: port)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { close(fd); return nil }
        return fd
    }
}
