import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` on `127.0.0.1` and a free port, for tests of a Redis shared tier.
///
/// Runs in the foreground (`--daemonize no`) with persistence off (`--save "" --appendonly no`)
/// and a fresh temporary working directory (its log is `redis.log` there). Extra arguments are
/// appended, e.g. `["--requirepass", "secret"]` or `["--maxmemory", "1mb", "--maxmemory-policy",
/// "noeviction"]`.
///
/// ```swift
/// @Test(.enabled(if: RedisServer.isAvailable)) func roundTrip() async throws {
///     let server = try RedisServer()
///     defer { server.stop() }
///     let shared = try RedisSharedCache(url: server.url)
///     // … a pipeline with `configuration.sharedCache = shared`, or `server.command(["DBSIZE"])`
/// }
/// ```
///
/// ``stop()`` ends the process (the directory stays, so ``start()`` can bring the server back on
/// the same port); deinit also removes the directory. ``pause()`` / ``resume()`` freeze the
/// process with SIGSTOP / SIGCONT to imitate a hung server.
public final class RedisServer: Sendable {
    /// The server binary used by default: `/usr/bin/redis-server` (Debian `redis-server`).
    public static let defaultBinary = "/usr/bin/redis-server"

    /// Whether ``defaultBinary`` exists and is executable; use with `.enabled(if:)`.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: defaultBinary) }

    /// The port the server listens on, on `127.0.0.1`.
    public let port: Int
    /// The temporary working directory (log, cluster `nodes.conf`).
    public let directory: URL
    /// The password given with `--requirepass`, if any (used by ``command(_:timeout:)``).
    public let password: String?
    private let binary: String
    private let arguments: [String]
    private let process: Mutex<Process?>

    /// Starts a server and waits (up to 10 s) until it answers `PING`.
    ///
    /// - Parameters:
    ///   - extraArguments: appended to the command line.
    ///   - binary: the server executable; ``defaultBinary`` by default.
    /// - Throws: ``TestServerError/unavailable(_:)`` when the binary is missing;
    ///   ``TestServerError/failedToStart(_:)`` (with the server's log) when it does not come up
    ///   after 3 attempts on different ports.
    public init(extraArguments: [String] = [], binary: String = RedisServer.defaultBinary) throws {
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw TestServerError.unavailable(binary) }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pictor-redis-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        self.binary = binary
        if let index = extraArguments.firstIndex(of: "--requirepass"), index + 1 < extraArguments.count {
            password = extraArguments[index + 1]
        } else {
            password = nil
        }
        var lastError = ""
        // A cluster node also listens on its bus port, port + 10000, which must exist and be free.
        let clusterBus = extraArguments.contains("--cluster-enabled")
        for _ in 0..<3 {
            var port = try LoopbackHTTP.freePort()
            while clusterBus && (port > 55535 || !Self.canBind(port: port + 10000)) { port = try LoopbackHTTP.freePort() }
            let arguments = ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", directory.path, "--daemonize", "no", "--logfile", directory.path + "/redis.log"]
                + extraArguments
            if let process = try? Self.launch(binary: binary, arguments: arguments, port: port, password: password) {
                self.port = port
                self.arguments = arguments
                self.process = Mutex(process)
                return
            }
            lastError = (try? String(contentsOfFile: directory.path + "/redis.log", encoding: .utf8)) ?? ""
        }
        try? FileManager.default.removeItem(at: directory)
        throw TestServerError.failedToStart("redis-server: \(lastError.suffix(2000))")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `redis://127.0.0.1:<port>` (no credentials).
    public var url: String { "redis://127.0.0.1:\(port)" }

    /// `127.0.0.1:<port>`.
    public var address: String { "127.0.0.1:\(port)" }

    /// The server's process id while it runs.
    public var processIdentifier: Int32? { process.withLock { $0?.isRunning == true ? $0?.processIdentifier : nil } }

    /// Sends one command on a new raw connection (authenticating with ``password``).
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)``.
    @discardableResult
    public func command(_ arguments: [String], timeout: Double = 5) throws -> RedisWireReply {
        try RedisWire.command(port: port, arguments, password: password, timeout: timeout)
    }

    /// Starts the server again on the same port, with the same arguments, after ``stop()``; does
    /// nothing while it runs.
    ///
    /// - Throws: ``TestServerError/failedToStart(_:)`` when it does not answer within 10 s.
    public func start() throws {
        guard processIdentifier == nil else { return }
        let process = try Self.launch(binary: binary, arguments: arguments, port: port, password: password)
        self.process.withLock { $0 = process }
    }

    /// Stops the server: SIGTERM, then SIGKILL if it has not exited within 0.3 s (a child of the
    /// test process may inherit a signal mask that blocks SIGTERM); idempotent.
    public func stop() {
        let process = self.process.withLock { p -> Process? in defer { p = nil }; return p }
        guard let process, process.isRunning else { return }
        let pid = process.processIdentifier
        _ = Glibc.kill(pid, SIGCONT)  // a paused server cannot handle SIGTERM
        _ = Glibc.kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(0.3)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        LoopbackHTTP.kill(process)  // SIGKILL if still running (SIGTERM may be blocked), then reap
    }

    /// Kills the server at once with SIGKILL (a crash: no shutdown, nothing saved) and reaps it;
    /// idempotent. Like ``stop()``, the directory stays: ``start()`` brings the node back on the
    /// same port, empty (persistence is off) but, in a cluster, with its `nodes.conf`.
    public func kill() {
        let process = self.process.withLock { p -> Process? in defer { p = nil }; return p }
        guard let process else { return }
        LoopbackHTTP.kill(process)
    }

    /// Freezes the server (SIGSTOP): connections stay open and connects are still accepted by
    /// the kernel, but nothing is answered — a hung server.
    public func pause() {
        if let pid = processIdentifier { _ = Glibc.kill(pid, SIGSTOP) }
    }

    /// Lets a paused server run again (SIGCONT).
    public func resume() {
        if let pid = processIdentifier { _ = Glibc.kill(pid, SIGCONT) }
    }

    /// Whether `127.0.0.1:port` can be bound right now.
    private static func canBind(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    private static func launch(binary: String, arguments: [String], port: Int, password: String?) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && process.isRunning {
            // Any reply (PONG, or NOAUTH with a password) means the server is up.
            if let reply = try? RedisWire.command(port: port, ["PING"], timeout: 1) {
                if case .error(let message) = reply, message.hasPrefix("LOADING") {} else { return process }
            }
            usleep(20_000)
        }
        LoopbackHTTP.kill(process)
        throw TestServerError.failedToStart("redis-server did not answer PING on port \(port)")
    }
}
