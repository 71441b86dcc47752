import Foundation

/// One wrk run: what `scripts/wrk_urls.lua`'s `done()` printed.
struct WrkResult {
    var requests: Double
    var seconds: Double
    var bytes: Double
    /// Non-2xx/3xx answers, timeouts, and connect, read and write errors.
    var errors: Int
    var p50: Double
    var p95: Double
    var p99: Double
    var max: Double

    var requestsPerSecond: Double { requests / Swift.max(seconds, 1e-9) }
}

/// wrk 4 with `Benchmarks/scripts/wrk_urls.lua`: distinct source URLs (cold) or a fixed set
/// (warm) under a path prefix.
struct Wrk {
    let binary: String
    let script = Paths.benchmarks.appendingPathComponent("scripts/wrk_urls.lua").path
    let output: String

    enum Mode: String { case cold, warm }

    /// Runs `connections` connections on at most 2 threads for `seconds`; a request that takes
    /// over 30 s is a timeout (a cold peer under 8 connections can queue for seconds).
    func run(port: Int, mode: Mode, prefix: String, suffix: String = "", nonce: String, distinct: Int = 0,
             files: [String], connections: Int, seconds: Int) throws -> WrkResult {
        try? FileManager.default.removeItem(atPath: output)
        let arguments = ["-t", "\(min(connections, 2))", "-c", "\(connections)", "-d", "\(seconds)s", "--timeout", "30s",
                         "-s", script, "http://127.0.0.1:\(port)", "--", mode.rawValue, prefix, suffix, nonce, "\(distinct)"] + files
        let process = try ProcessTree(name: "wrk", binary, arguments, stdout: output)
        let status = process.wait()
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        guard status == 0, let line = text.split(separator: "\n").first(where: { $0.hasPrefix("wrk-result ") }) else {
            throw BenchError("wrk exited \(status): \(text.suffix(300))")
        }
        var fields: [String: Double] = [:]
        for pair in line.split(separator: " ").dropFirst() {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
        }
        func f(_ key: String) -> Double { fields[key] ?? .nan }
        let errors = ["connect", "read", "write", "status", "timeout"].reduce(0) { $0 + Int(fields[$1] ?? 0) }
        return WrkResult(requests: f("requests"), seconds: f("duration_us") / 1e6, bytes: f("bytes"), errors: errors,
                         p50: f("p50_us") * 1e3, p95: f("p95_us") * 1e3, p99: f("p99_us") * 1e3, max: f("max_us") * 1e3)
    }
}

/// Plain HTTP/1.0 GETs over loopback sockets: one at a time, or many sent before any answer is
/// read (the coalescing row).
enum LoopbackGet {
    struct Response {
        var status: Int
        var body: [UInt8]
    }

    /// One GET to 127.0.0.1:`port`.
    static func get(port: Int, path: String) throws -> Response {
        try concurrent([(port, path)])[0]
    }

    /// Opens one connection per request, sends every request, and only then reads the answers,
    /// so that all of them are in the server before it can finish the first.
    static func concurrent(_ targets: [(port: Int, path: String)]) throws -> [Response] {
        var sockets: [Int32] = []
        defer { for fd in sockets { close(fd) } }
        for target in targets { sockets.append(try connectLoopback(target.port)) }
        for (fd, (port, path)) in zip(sockets, targets) {
            let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nUser-Agent: PictorBenchmarks\r\n\r\n".utf8)
            var sent = 0
            while sent < request.count {
                let n = request[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { throw BenchError("write to 127.0.0.1:\(port) failed: \(String(cString: strerror(errno)))") }
                sent += n
            }
        }
        return try sockets.map { try readResponse($0) }
    }

    private static func connectLoopback(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw BenchError("connect to 127.0.0.1:\(port) failed: \(String(cString: strerror(errno)))")
        }
        return fd
    }

    /// Reads to the end of the stream (HTTP/1.0: the server closes after its answer).
    private static func readResponse(_ fd: Int32) throws -> Response {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { break }
            guard n > 0 else {
                if errno == EINTR { continue }
                throw BenchError("read failed: \(String(cString: strerror(errno)))")
            }
            data += buffer[0..<n]
        }
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, data.count - 3)).first(where: { Array(data[$0..<$0 + 4]) == separator }) else {
            throw BenchError("no HTTP response head (\(data.count) bytes)")
        }
        let head = String(decoding: data[..<end], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw BenchError("bad status line '\(statusLine)'") }
        return Response(status: status, body: Array(data[(end + 4)...]))
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func isListening(_ port: Int) -> Bool {
        guard let fd = try? connectLoopback(port) else { return false }
        close(fd)
        return true
    }

    /// Waits up to `seconds` for the port to accept connections.
    static func waitForListening(_ port: Int, seconds: Double, while alive: () -> Bool) -> Bool {
        let deadline = nowNanoseconds() + UInt64(seconds * 1e9)
        while nowNanoseconds() < deadline {
            if isListening(port) { return true }
            if !alive() { return false }
            usleep(50_000)
        }
        return isListening(port)
    }
}

/// Width and height from a JPEG's frame header (SOF0–SOF15 but DHT, JPG and DAC), or nil.
func jpegDimensions(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
    guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
    var i = 2
    while i + 9 < bytes.count {
        guard bytes[i] == 0xFF else { return nil }
        let marker = bytes[i + 1]
        if marker == 0xFF { i += 1; continue }
        let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
        if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
            let height = Int(bytes[i + 5]) << 8 | Int(bytes[i + 6])
            let width = Int(bytes[i + 7]) << 8 | Int(bytes[i + 8])
            return (width, height)
        }
        i += 2 + length
    }
    return nil
}
