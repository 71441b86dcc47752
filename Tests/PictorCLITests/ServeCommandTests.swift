import Foundation
import PictorServer
import PictorService
import PictorTestSupport
import Synchronization
import Testing
@testable import PictorCLI

/// `pictor serve`: its options, their environment variables, and a server that starts, answers
/// and drains (origins and the server on loopback only).
@Suite struct ServeCommandTests {
    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"

    @Test func theEnvironmentGivesWhatTheCommandLineDoesNot() throws {
        let options = CLICommandOptions.serve.options
        let environment = [
            "PICTOR_LISTEN": "127.0.0.1:9", "PICTOR_KEY": "aa, bb", "PICTOR_SALT": "cc,dd",
            "PICTOR_ALLOW_PRIVATE_NETWORK": "1", "PICTOR_INSECURE_UNSIGNED": "0", "PICTOR_TTL": "",
        ]
        let merged = try EnvironmentOptions.merge(["--listen", "127.0.0.1:1", "--salt=ee"], options: options, environment: environment)
        var parser = ArgumentParser(merged, declared: options)
        let listen = try parser.option(.listen)
        let keys = try parser.options(.signingKey)
        let salts = try parser.options(.signingSalt)
        let allowsPrivateNetwork = parser.flag(.allowPrivateNetwork)
        let insecure = parser.flag(.insecureUnsigned)
        let ttl = try parser.intOption(.ttl)
        #expect(listen == "127.0.0.1:1", "the flag wins")
        #expect(keys == ["aa", "bb"], "a list, comma-separated")
        #expect(salts == ["ee"], "a repeatable flag replaces its whole variable")
        #expect(allowsPrivateNetwork)
        #expect(!insecure)
        #expect(ttl == nil, "an empty variable is no value")
        #expect(EnvironmentOptions.variable(for: .sharedCache) == "PICTOR_SHARED_CACHE")
        #expect(EnvironmentOptions.variable(for: .drainTimeout) == "PICTOR_DRAIN_TIMEOUT")
        #expect(throws: CLIError.self) {
            try EnvironmentOptions.merge([], options: options, environment: ["PICTOR_NO_CACHE": "maybe"])
        }
    }

    /// A bad value from the environment is named by its variable, which is where an operator
    /// must look; one from the command line by its option.
    @Test func aBadValueFromTheEnvironmentNamesItsVariable() async {
        let fromEnvironment = RecordingConsole()
        let code = await PictorCommand.run(["serve", "--insecure-unsigned"], console: fromEnvironment.console,
                                           environment: ["PICTOR_WORKERS": "many"])
        #expect(code == 64)
        #expect(fromEnvironment.errors.contains("PICTOR_WORKERS (--workers)"), "\(fromEnvironment.errors)")
        let fromArguments = RecordingConsole()
        _ = await PictorCommand.run(["serve", "--insecure-unsigned", "--workers", "many"], console: fromArguments.console,
                                    environment: ["PICTOR_WORKERS": "2"])
        #expect(fromArguments.errors.contains("'--workers'") && !fromArguments.errors.contains("PICTOR_WORKERS"), "\(fromArguments.errors)")
    }

    @Test(arguments: [
        ([String](), "URL signing needs '--key HEX --salt HEX'"),
        (["--insecure-unsigned", "--key", "aa", "--salt", "bb"], "contradict each other"),
        (["--key", "aa"], "1 keys but 0 salts"),
        (["--key", "xyz", "--salt", "aa"], "not hex"),
        (["--insecure-unsigned", "--listen", "nowhere"], "invalid value for '--listen'"),
        (["--insecure-unsigned", "--log-format", "xml"], "invalid value 'xml' for '--log-format'"),
    ])
    func refusesBeforeListening(_ arguments: [String], _ message: String) async {
        let (code, console) = await runPictor(["serve", "--no-cache"] + arguments)
        #expect(code == 64)
        #expect(console.errors.contains(message), "\(console.errors)")
        #expect(console.output.isEmpty, "nothing listened")
    }

    @Test(.enabled(if: NginxServer.isAvailable && FileManager.default.fileExists(atPath: sharedCorpus.path), "needs nginx and ../shared/corpus"))
    func servesASignedImageAndStopsWithExitZero() async throws {
        let nginx = try await offPool { try NginxServer.start(root: sharedCorpus) }
        defer { nginx.stop() }
        let console = RecordingConsole()
        let context = CommandContext(console: console.console, environment: [
            "HOME": "/nonexistent-home", "PICTOR_KEY": Self.key, "PICTOR_SALT": Self.salt,
        ])
        let shutdown = ShutdownSignal(signals: [])
        let (addresses, addressSink) = AsyncStream<ListenAddress>.makeStream()
        let serving = Task {
            try await ServeCommand.serve(
                ["--listen", "127.0.0.1:0", "--no-cache", "--allow-private-network", "--ttl", "60"],
                context: context, shutdown: shutdown, listening: { addressSink.yield($0) })
        }
        var iterator = addresses.makeAsyncIterator()
        guard case .tcp(_, let port)? = await iterator.next() else {
            Issue.record("no address: \(console.errors)")
            shutdown.trigger()
            _ = try? await serving.value
            return
        }
        let rest = "/rs:fit:48:48/plain/" + nginx.url("/exif-orientation/Landscape_1.jpg").absoluteString
        let target = "/" + Self.sign(rest) + rest
        let (status, headers) = try await offPool { () -> (Int, String) in
            let response = try ServeCommandTests.get(port: port, path: target)
            return (response.status, response.head)
        }
        shutdown.trigger()
        let code = try await serving.value
        #expect(code == 0)
        #expect(status == 200)
        #expect(headers.contains("Content-Type: image/jpeg"), "\(headers)")
        #expect(headers.contains("Cache-Control: public, max-age=60"), "\(headers)")
        #expect(console.output == "listening on 127.0.0.1:\(port)\n")
        #expect(console.errors.contains("\"GET \(target)\" 200 "), "\(console.errors)")
    }

    @Test(.enabled(if: BinaryRunner.isAvailable, "needs the built pictor binary"))
    func sigtermDrainsAndExitsZero() async throws {
        let (process, out, err) = try Self.launchServe(["--insecure-unsigned", "--listen", "127.0.0.1:0", "--no-cache", "--log-format", "json"])
        let (port, health, stderr, status) = try await offPool { () -> (Int, Int, String, Int32) in
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            let (port, text) = ServeCommandTests.listeningPort(out)
            guard let port else { return (0, 0, text, -1) }
            let health = try ServeCommandTests.get(port: port, path: "/health").status
            kill(process.processIdentifier, SIGTERM)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let status = LoopbackHTTP.waitForExit(process)
            return (port, health, stderr, status)
        }
        #expect(port > 0, "\(stderr)")
        #expect(health == 200)
        #expect(status == 0, "an exit, not a signal: \(status)")
        #expect(stderr.contains(#""method":"GET","path":"/health","status":200"#), "\(stderr)")
        #expect(stderr.contains("pictor serve: stopping"))
    }

    /// With `--log-format json`, every line on standard error is a JSON object: the access log,
    /// libmicrohttpd's messages (a malformed request, a connection over the per-IP limit) and
    /// the command's own.
    @Test(.enabled(if: BinaryRunner.isAvailable, "needs the built pictor binary"))
    func jsonLogFormatWritesOnlyJSONLines() async throws {
        let (process, out, err) = try Self.launchServe([
            "--insecure-unsigned", "--listen", "127.0.0.1:0", "--no-cache", "--log-format", "json",
            "--max-connections-per-ip", "1", "--header-timeout", "5",
        ])
        let (health, stderr, status) = try await offPool { () -> (Int, String, Int32) in
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            guard let port = ServeCommandTests.listeningPort(out).port else { return (0, "", -1) }
            let health = try ServeCommandTests.get(port: port, path: "/health").status
            // A request line libmicrohttpd refuses itself, with a message of its own.
            _ = try? ServeCommandTests.raw(port: port, "NOT HTTP AT ALL\r\n\r\n")
            kill(process.processIdentifier, SIGTERM)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (health, stderr, LoopbackHTTP.waitForExit(process))
        }
        #expect(health == 200)
        #expect(status == 0)
        let lines = stderr.split(separator: "\n")
        #expect(lines.count >= 3, "\(stderr)")
        for line in lines {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(line)")
        }
        #expect(stderr.contains(#""message":"pictor serve: stopping"#), "\(stderr)")
        #expect(stderr.contains(#""message":"pictor-server: "#), "libmicrohttpd's message: \(stderr)")
    }

    /// The service's own settings are flags (and variables): formats from Accept, presets,
    /// presets-only mode, and a preset file with a mistake is refused before listening.
    @Test func serviceFlagsAreParsed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-presets-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("presets.conf")
        try "# thumbnails\nthumb=rs:fill:200:200/q:70\n".write(to: file, atomically: true, encoding: .utf8)
        let context = CommandContext(console: RecordingConsole().console, environment: [
            "PICTOR_MAX_SRC_PIXELS": "1000000", "PICTOR_REQUEST_TIMEOUT": "7",
        ])
        var parser = ArgumentParser(
            try EnvironmentOptions.merge(
                ["--insecure-unsigned", "--auto-format", "avif,webp", "--presets", file.path, "--presets-only",
                 "--max-connections", "64", "--max-connections-per-ip", "8", "--header-timeout", "3"],
                options: CLICommandOptions.serve.options, environment: context.environment),
            declared: CLICommandOptions.serve.options)
        let settings = try ServeSettings.parse(&parser, context: context)
        #expect(settings.autoFormats == [.avif, .webp])
        #expect(settings.presets.names == ["thumb"])
        #expect(settings.presetsOnly)
        #expect(settings.maxSourcePixels == 1_000_000)
        #expect(settings.requestTimeout == 7)
        #expect(settings.maxConnections == 64 && settings.maxConnectionsPerIP == 8 && settings.headerTimeout == 3)
        #expect(try settings.urlParser().onlyPresets)
        #expect(throws: CLIError.self) { try ServeSettings.parseAutoFormats("avif,bmp") }

        try "thumb=rs:fill:200:200/nosuch:1\n".write(to: file, atomically: true, encoding: .utf8)
        var bad = ArgumentParser(["--insecure-unsigned", "--presets", file.path], declared: CLICommandOptions.serve.options)
        let badSettings = try ServeSettings.parse(&bad, context: context)
        #expect(throws: CLIError.self) { try badSettings.urlParser() }
    }

    /// SIGTERM while a request is held at the origin: the process stops accepting, the request
    /// still gets its image once the origin answers, and the process exits 0.
    @Test(.enabled(if: BinaryRunner.isAvailable && FaultServer.isAvailable, "needs the built pictor binary and python3"))
    func sigtermLetsTheRequestInFlightFinish() async throws {
        let fault = try await offPool { try FaultServer() }
        defer { fault.stop() }
        let (process, out, err) = try Self.launchServe(
            ["--insecure-unsigned", "--allow-private-network", "--listen", "127.0.0.1:0", "--no-cache", "--drain-timeout", "120"])
        let source = Data(fault.url("/hold?key=serve-sigterm").absoluteString.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let (status, refusedAfterSignal, stderr, exitStatus) = try await offPool { () -> (Int, Bool, String, Int32) in
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            guard let port = ServeCommandTests.listeningPort(out).port else { return (0, false, "", -1) }
            let result = Mutex<(Int, String)?>(nil)
            let request = Thread {
                let response = Result { try ServeCommandTests.get(port: port, path: "/insecure/rs:fit:16:16/\(source)") }
                result.withLock { $0 = (try? response.get()).map { ($0.status, $0.head) } ?? (0, "") }
            }
            request.start()
            while try fault.requestCount(prefix: "/hold?key=serve-sigterm") == 0 { usleep(5_000) }
            kill(process.processIdentifier, SIGTERM)
            // Draining once new connections are refused.
            while (try? ServeCommandTests.get(port: port, path: "/health")) != nil { usleep(5_000) }
            try fault.release(key: "serve-sigterm")
            while result.withLock({ $0 }) == nil { usleep(5_000) }
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let exitStatus = LoopbackHTTP.waitForExit(process)
            return (result.withLock { $0?.0 } ?? 0, true, stderr, exitStatus)
        }
        #expect(refusedAfterSignal)
        #expect(status == 200, "\(stderr)")
        #expect(exitStatus == 0, "an exit, not a signal: \(exitStatus)")
    }

    /// imgproxy's signature of `path` with the test pair.
    /// Starts the built `pictor serve` with `arguments`, its standard output and error piped, and
    /// a home directory that does not exist (no user cache is touched).
    static func launchServe(_ arguments: [String]) throws -> (process: Process, out: Pipe, err: Pipe) {
        let process = Process()
        process.executableURL = BinaryRunner.executable!
        process.arguments = ["serve"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = "/nonexistent-home"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, out, err)
    }

    /// The port in the first line `pictor serve` prints ("listening on HOST:PORT"), and that
    /// line; `nil` when the output ended first. Blocks until the line arrives.
    static func listeningPort(_ out: Pipe) -> (port: Int?, line: String) {
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        return (text.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }, text)
    }

    static func sign(_ path: String) -> String {
        try! SignaturePolicy(hexKeys: [key], hexSalts: [salt]).signature(for: path)!
    }

    /// Sends `text` as it is to `127.0.0.1:port` and reads until the server closes.
    static func raw(port: Int, _ text: String) throws -> String {
        struct Failure: Error { var step: String }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(step: "socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(step: "connect") }
        let request = Array(text.utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { throw Failure(step: "send") }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { break }
            response.append(contentsOf: buffer[0..<n])
        }
        return String(decoding: response, as: UTF8.self)
    }

    /// `GET path HTTP/1.0` to `127.0.0.1:port`: the status, the response's head and its body.
    static func get(port: Int, path: String) throws -> (status: Int, head: String, body: String) {
        struct Failure: Error { var step: String }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(step: "socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(step: "connect") }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { throw Failure(step: "send") }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { break }
            response.append(contentsOf: buffer[0..<n])
        }
        let parts = String(decoding: response.prefix { $0 != 0 }, as: UTF8.self).components(separatedBy: "\r\n\r\n")
        let head = parts[0]
        guard let status = head.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { throw Failure(step: "status") }
        return (status, head, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}
