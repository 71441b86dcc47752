import Foundation
import Synchronization

/// A real nginx serving a folder on `127.0.0.1` and a free port, for integration tests, CLI tests
/// and benchmarks.
///
/// The server runs in the foreground as one process (`daemon off; master_process off;`), with a
/// configuration generated in a fresh temporary directory:
/// - `root` is the given folder; `sendfile`, keep-alive and `etag on` are on, and nginx sends
///   `Last-Modified`, so `If-None-Match` / `If-Modified-Since` get `304 Not Modified`;
/// - MIME types for every image format Pictor knows (`.jpg` → `image/jpeg`, …), anything else
///   `application/octet-stream`;
/// - an access log (tab-separated: method, request URI, status, body bytes, `If-None-Match`,
///   `If-Modified-Since`) that ``loggedRequests()`` and ``requestCount(path:)`` read;
/// - `extraServerConfig` is pasted inside the `server { }` block (e.g. a `location` adding
///   `Cache-Control` headers with `add_header`).
///
/// ```swift
/// @Test(.enabled(if: NginxServer.isAvailable)) func loadsFromNginx() async throws {
///     let server = try NginxServer.start(root: corpusDirectory)
///     defer { server.stop() }
///     let url = server.url("/pngsuite/basn2c08.png")
///     // … load url …
///     #expect(try server.requestCount(path: "/pngsuite/basn2c08.png") == 1)
/// }
/// ```
///
/// - Important: call ``stop()`` when done (also done on deinit). The temporary directory (config,
///   logs) is removed on stop; the served folder is never touched.
public final class NginxServer: Sendable {
    /// The nginx binary used by default: `/usr/sbin/nginx` (Debian `nginx-light`).
    public static let defaultBinary = "/usr/sbin/nginx"

    /// Whether ``defaultBinary`` exists and is executable; use with `.enabled(if:)` to skip
    /// cleanly where nginx is not installed.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: defaultBinary) }

    /// The port nginx listens on, on `127.0.0.1`.
    public let port: Int
    /// The folder served as the document root.
    public let root: URL
    /// The temporary directory holding `nginx.conf`, `access.log` and `error.log`.
    public let directory: URL
    private let process: Mutex<Process?>

    /// Polls (every 10 ms, at most `timeout` seconds) until `path` exists, while `alive` holds.
    private static func waitForFile(_ path: String, timeout: Double, while alive: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, alive() {
            if FileManager.default.fileExists(atPath: path) { return true }
            usleep(10_000)
        }
        return alive() && FileManager.default.fileExists(atPath: path)
    }

    /// `extraServerConfig` that makes every file fresh for an hour (`Cache-Control: max-age=3600`).
    ///
    /// Without it nginx sends only `Last-Modified`, and a cache's heuristic freshness is a tenth
    /// of the file's age: files laid out a minute before the tests are fresh for six seconds,
    /// so a test that expects a warm run from the cache would depend on when they were copied.
    public static let freshForAnHour = "location / { expires 1h; }"

    /// Starts nginx serving `root`; same as ``init(root:binary:extraServerConfig:)``.
    ///
    /// - Throws: see ``init(root:binary:extraServerConfig:)``.
    public static func start(root: URL, extraServerConfig: String = "") throws -> NginxServer {
        try NginxServer(root: root, extraServerConfig: extraServerConfig)
    }

    /// Starts nginx serving `root` and waits (up to 10 s) until it accepts connections and has
    /// bound every listen socket (it writes its pid file only then).
    ///
    /// - Parameters:
    ///   - root: the folder to serve (must exist).
    ///   - binary: the nginx executable; ``defaultBinary`` by default.
    ///   - extraServerConfig: nginx directives added inside the `server` block.
    /// - Throws: ``TestServerError/unavailable(_:)`` when the binary is missing;
    ///   ``TestServerError/failedToStart(_:)`` (with nginx's error log) when it does not come up
    ///   after 3 attempts on different ports.
    public init(root: URL, binary: String = NginxServer.defaultBinary, extraServerConfig: String = "") throws {
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw TestServerError.unavailable(binary) }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pictor-nginx-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var lastError = ""
        for _ in 0..<3 {
            let port = try LoopbackHTTP.freePort()
            let config = NginxServer.config(root: root.standardizedFileURL.path, directory: directory.path,
                                            port: port, extra: extraServerConfig)
            let configPath = directory.appendingPathComponent("nginx.conf").path
            try config.write(toFile: configPath, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["-p", directory.path, "-c", configPath, "-e", directory.path + "/error.log"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            // Listening on the port is not enough: another test's server may hold a port this
            // one failed to bind (nginx retries a failed bind for a few seconds before exiting).
            // nginx writes its pid file only once every listen socket is bound.
            let pidFile = directory.appendingPathComponent("nginx.pid").path
            try? FileManager.default.removeItem(atPath: pidFile)
            try process.run()
            if LoopbackHTTP.waitUntilListening(port: port, timeout: 10, while: { process.isRunning }),
               Self.waitForFile(pidFile, timeout: 10, while: { process.isRunning }) {
                self.port = port
                self.root = root
                self.directory = directory
                self.process = Mutex(process)
                return
            }
            LoopbackHTTP.kill(process)  // SIGKILL: SIGTERM may be blocked in the child (inherited signal mask)
            lastError = (try? String(contentsOfFile: directory.path + "/error.log", encoding: .utf8)) ?? ""
        }
        try? FileManager.default.removeItem(at: directory)
        throw TestServerError.failedToStart("nginx: \(lastError)")
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The URL of `path` (starting with `/`, relative to ``root``, may carry a query).
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// The requests nginx has logged, oldest first.
    ///
    /// nginx writes a log line just after it sent the response; this method first sends a
    /// request to an unlogged internal location (`/__pictor_sync`) and waits for its answer, so
    /// every response the caller already received is in the log.
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)`` when nginx does not answer.
    public func loggedRequests() throws -> [LoggedRequest] {
        _ = try LoopbackHTTP.get(port: port, path: "/__pictor_sync")
        let text = (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap(LoggedRequest.init(line:))
    }

    /// How many requests nginx logged for exactly `path` (the request URI with its query).
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)`` when nginx does not answer.
    public func requestCount(path: String) throws -> Int {
        try loggedRequests().filter { $0.uri == path }.count
    }

    /// Stops nginx (SIGKILL, then waits) and removes the temporary directory; idempotent.
    public func stop() {
        let process = self.process.withLock { p -> Process? in defer { p = nil }; return p }
        guard let process else { return }
        LoopbackHTTP.kill(process)  // SIGKILL: SIGTERM may be blocked in the child (inherited signal mask)
        try? FileManager.default.removeItem(at: directory)
    }

    /// One line of the access log.
    public struct LoggedRequest: Sendable, Hashable {
        /// `GET`, `HEAD`, …
        public var method: String
        /// The request URI as sent (path and query).
        public var uri: String
        /// The status nginx answered (`200`, `304`, `404`, …).
        public var status: Int
        /// Body bytes sent.
        public var bodyBytes: Int
        /// The request's `If-None-Match`, or `nil`.
        public var ifNoneMatch: String?
        /// The request's `If-Modified-Since`, or `nil`.
        public var ifModifiedSince: String?

        init?(line: Substring) {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 6, let status = Int(f[2]) else { return nil }
            method = f[0]
            uri = f[1]
            self.status = status
            bodyBytes = Int(f[3]) ?? 0
            ifNoneMatch = f[4] == "-" ? nil : f[4]
            ifModifiedSince = f[5] == "-" ? nil : f[5]
        }
    }
}
