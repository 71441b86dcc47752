import Foundation
import Synchronization

/// A loopback HTTP server that misbehaves on purpose: delays, truncated bodies, connection
/// resets, error statuses, HTML instead of an image, slow drips, huge `Content-Length`s,
/// redirect chains and loops, ETag / Last-Modified revalidation with 304 answers,
/// `Cache-Control` variants and 429 with `Retry-After`.
///
/// It runs `Tests/Servers/fault_server.py` (Python 3 `ThreadingHTTPServer`) on `127.0.0.1` and a
/// free port. The full list of routes and their query parameters is in that script's docstring;
/// the usual ones are `/image`, `/octet`, `/delay?ms=`, `/truncated`, `/reset`, `/status?code=`,
/// `/flaky?key=&fail=`, `/retry-after?key=&after=`, `/html`, `/empty`, `/drip?chunks=&ms=&size=`,
/// `/huge`, `/redirect?n=`, `/loop`, `/etag?key=&cc=`, `/lastmod?key=&cc=`, `/cache?cc=`, and
/// `/hold?key=` which answers only after ``release(key:)`` (for deterministic in-flight tests),
/// `/big?key=&declare=&send=&chunked=1` and `/stall?key=` whose written bytes
/// ``bytesWritten(key:)`` reports once the client hung up.
/// Image bodies are a valid 4×4 PNG (98 bytes) unless `imagePath` is given.
///
/// Every request is recorded **before** it is answered, so ``requests(prefix:)`` and
/// ``requestCount(prefix:)`` are exact as soon as the client has its response. Use a unique
/// `key=` query value per test to keep tests independent.
///
/// ```swift
/// let server = try FaultServer()
/// defer { server.stop() }
/// let url = server.url("/flaky?key=\(UUID())&fail=1")
/// // … load url …
/// #expect(try server.requestCount(prefix: "/flaky") == 2)
/// ```
///
/// - Important: call ``stop()`` when done (also done on deinit). The Python process also exits
///   by itself when the test process dies (it watches its standard input).
public final class FaultServer: Sendable {
    /// The port the server listens on, on `127.0.0.1`.
    public let port: Int
    private let process: Mutex<Process?>
    private let stdinPipe: Pipe
    /// The file that receives the server's standard error (Python tracebacks), for debugging.
    public let errorLogPath: String

    /// Whether `python3` and the server script can be found; use with `.enabled(if:)`.
    public static var isAvailable: Bool {
        LoopbackHTTP.which("python3") != nil && FileManager.default.fileExists(atPath: defaultScriptPath)
    }

    /// `Tests/Servers/fault_server.py` in this package, found from this source file's path.
    public static let defaultScriptPath: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }   // Servers, PictorTestSupport, Sources
        return url.appendingPathComponent("Tests/Servers/fault_server.py").path
    }()

    /// Starts the server and waits until it listens.
    ///
    /// - Parameters:
    ///   - scriptPath: the Python script; ``defaultScriptPath`` by default.
    ///   - imagePath: a file served as the image body instead of the built-in PNG.
    /// - Throws: ``TestServerError/unavailable(_:)`` when `python3` or the script is missing;
    ///   ``TestServerError/failedToStart(_:)`` when the process exits before printing its port.
    public init(scriptPath: String = FaultServer.defaultScriptPath, imagePath: String? = nil) throws {
        guard let python = LoopbackHTTP.which("python3") else { throw TestServerError.unavailable("python3") }
        guard FileManager.default.fileExists(atPath: scriptPath) else { throw TestServerError.unavailable(scriptPath) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", scriptPath, "--port", "0"] + (imagePath.map { ["--image", $0] } ?? [])
        let out = Pipe(), input = Pipe()
        // Stderr goes to a file: a pipe nobody reads would block the server once full.
        let errPath = NSTemporaryDirectory() + "pictor-fault-server-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        process.standardOutput = out
        process.standardInput = input
        process.standardError = FileHandle(forWritingAtPath: errPath)
        try process.run()
        // The first line is "PORT <n>".
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            LoopbackHTTP.kill(process)  // SIGKILL: SIGTERM may be blocked in the child (inherited signal mask)
            let detail = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            throw TestServerError.failedToStart("fault_server.py: \(text) \(detail)")
        }
        self.errorLogPath = errPath
        self.port = port
        self.stdinPipe = input
        self.process = Mutex(process)
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The URL of `pathAndQuery` (which starts with `/`) on this server.
    public func url(_ pathAndQuery: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(pathAndQuery)")! }

    /// The requests received so far whose request target (path and query, as sent) starts with
    /// `prefix`, oldest first.
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)`` when the server does not answer.
    public func requests(prefix: String = "/") throws -> [RecordedRequest] {
        let encoded = prefix.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? prefix
        let (status, body) = try LoopbackHTTP.get(port: port, path: "/_requests?prefix=\(encoded)")
        guard status == 200 else { throw TestServerError.requestFailed("/_requests answered \(status)") }
        return try JSONDecoder().decode([RecordedRequest].self, from: body)
    }

    /// How many requests (any method) had a target starting with `prefix`.
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)`` when the server does not answer.
    public func requestCount(prefix: String) throws -> Int { try requests(prefix: prefix).count }

    /// Answers every request to `/hold?key=<key>` (held until now) and later ones at once.
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)`` when the server does not answer.
    public func release(key: String) throws {
        let encoded = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? key
        _ = try LoopbackHTTP.get(port: port, path: "/_release?key=\(encoded)")
    }

    /// The body bytes `/big?key=<key>` or `/stall?key=<key>` wrote before it ended (the client
    /// hung up, or everything was sent), waiting until that handler has ended (at most 60 s;
    /// `finished` is `false` if it had not by then), and whether the client closed the
    /// connection before the server was done (`hungUp`). Counts bytes handed to the socket, so
    /// up to the kernel's socket buffers (a few MiB on loopback) more than the client read.
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)`` when the server does not answer.
    public func bytesWritten(key: String) throws -> (written: Int64, finished: Bool, hungUp: Bool) {
        struct Answer: Decodable { var written: Int64; var finished: Bool; var hungUp: Bool }
        let encoded = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? key
        let (status, body) = try LoopbackHTTP.get(port: port, path: "/_written?key=\(encoded)")
        guard status == 200 else { throw TestServerError.requestFailed("/_written answered \(status)") }
        let answer = try JSONDecoder().decode(Answer.self, from: body)
        return (answer.written, answer.finished, answer.hungUp)
    }

    /// Forgets recorded requests and per-key counters (of `/flaky`, `/retry-after`).
    public func reset() throws { _ = try LoopbackHTTP.get(port: port, path: "/_reset") }

    /// Stops the server; idempotent.
    public func stop() {
        let process = self.process.withLock { p -> Process? in defer { p = nil }; return p }
        guard let process else { return }
        try? stdinPipe.fileHandleForWriting.close()
        LoopbackHTTP.kill(process)  // SIGKILL: SIGTERM may be blocked in the child (inherited signal mask)
    }
}

/// One request seen by ``FaultServer``.
public struct RecordedRequest: Sendable, Hashable, Decodable {
    /// `GET`, `HEAD`, …
    public var method: String
    /// The request target as sent: path and query.
    public var target: String
    /// The request headers, names lower-cased.
    public var headers: [String: String]
}
