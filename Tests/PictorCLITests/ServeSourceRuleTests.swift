import Foundation
import PictorServer
import PictorService
import PictorTestSupport
import Testing
@testable import PictorCLI

/// `pictor serve`'s source rules on the whole stack (service, loader, libcurl): the address a
/// source's name resolves to, every redirect hop, and the source byte cap while the body
/// arrives. Origins and the server are on loopback only; a refusal is never shown by sending
/// traffic to a private or public address.
@Suite(.enabled(if: FaultServer.isAvailable), .timeLimit(.minutes(5)))
struct ServeSourceRuleTests {
    /// A name `/etc/hosts` gives a loopback address (not `localhost`, which the service's look at
    /// the URL already refuses), when the hosts file is read before DNS: resolving it sends
    /// nothing off the machine. Debian maps the machine's own name to `127.0.1.1`.
    static let loopbackName: String? = {
        guard let nsswitch = try? String(contentsOfFile: "/etc/nsswitch.conf", encoding: .utf8),
              let hosts = nsswitch.split(separator: "\n").first(where: { $0.hasPrefix("hosts:") }),
              hosts.dropFirst("hosts:".count).split(separator: " ").first == "files",
              let file = try? String(contentsOfFile: "/etc/hosts", encoding: .utf8) else { return nil }
        for line in file.split(separator: "\n") {
            let fields = line.prefix { $0 != "#" }.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, fields[0].hasPrefix("127.") else { continue }
            if let name = fields.dropFirst().first(where: { SourceGuard.nonPublicClass(ofHost: String($0)) == nil && $0.contains { $0.isLetter } }) {
                return String(name)
            }
        }
        return nil
    }()

    /// Runs `pictor serve` in this process with `arguments` (unsigned, no disk cache) while
    /// `body` sends it requests; returns what `body` returned.
    static func serving<T: Sendable>(_ arguments: [String], _ body: @escaping @Sendable (Int) throws -> T) async throws -> T {
        let console = RecordingConsole()
        let context = CommandContext(console: console.console, environment: ["HOME": "/nonexistent-home"])
        let shutdown = ShutdownSignal(signals: [])
        let (addresses, sink) = AsyncStream<ListenAddress>.makeStream()
        let serving = Task {
            try await ServeCommand.serve(
                ["--insecure-unsigned", "--listen", "127.0.0.1:0", "--no-cache"] + arguments,
                context: context, shutdown: shutdown, listening: { sink.yield($0) })
        }
        var iterator = addresses.makeAsyncIterator()
        guard case .tcp(_, let port)? = await iterator.next() else {
            shutdown.trigger()
            _ = try? await serving.value
            throw TestServerError.failedToStart("pictor serve: \(console.errors)")
        }
        let result: Result<T, any Error>
        do { result = .success(try await offPool { try body(port) }) } catch { result = .failure(error) }
        shutdown.trigger()
        let code = try await serving.value
        #expect(code == 0)
        return try result.get()
    }

    static func path(_ source: String) -> String {
        "/insecure/rs:fit:16:16/plain/" + source.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    /// An allowed origin redirects to another port on the same loopback address, off the allowed
    /// prefix: 403, and the other port's server sees nothing.
    @Test func aRedirectToAnotherLoopbackPortIsRefused() async throws {
        let (a, b) = try await offPool { (try FaultServer(), try FaultServer()) }
        defer { a.stop(); b.stop() }
        let target = b.url("/image?key=elsewhere").absoluteString
        let source = a.url("/absolute-redirect?key=serve-redirect&to=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        let prefix = "http://127.0.0.1:\(a.port)/"
        let response = try await Self.serving(["--allow-private-network", "--allow-source", prefix]) { port in
            try ServeCommandTests.get(port: port, path: Self.path(source.absoluteString))
        }
        #expect(response.status == 403, "\(response.head)\n\(response.body)")
        #expect(response.body == "the source redirected to a URL that is not allowed\n")
        #expect(try a.requestCount(prefix: "/absolute-redirect?key=serve-redirect") == 1)
        #expect(try b.requestCount(prefix: "/") == 0)
    }

    /// The same redirect within the allowed prefix is followed.
    @Test func aRedirectWithinTheAllowedPrefixIsFollowed() async throws {
        let a = try await offPool { try FaultServer() }
        defer { a.stop() }
        let target = a.url("/image?key=serve-redirect-inside").absoluteString
        let source = a.url("/absolute-redirect?key=serve-redirect-inside&to=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        let response = try await Self.serving(["--allow-private-network", "--allow-source", "http://127.0.0.1:\(a.port)/"]) { port in
            try ServeCommandTests.get(port: port, path: Self.path(source.absoluteString))
        }
        #expect(response.status == 200, "\(response.head)\n\(response.body)")
        #expect(try a.requestCount(prefix: "/image?key=serve-redirect-inside") == 1)
    }

    /// A name the URL check cannot judge resolves to loopback: refused when libcurl is about to
    /// connect, so the origin sees no request; `--allow-private-network` lets it through.
    @Test(.enabled(if: loopbackName != nil, "needs a loopback name in /etc/hosts, read before DNS"))
    func aNameThatResolvesToLoopbackIsRefusedAtConnectByDefault() async throws {
        let name = try #require(Self.loopbackName)
        let origin = try await offPool { try FaultServer() }
        defer { origin.stop() }
        let refusedSource = "http://\(name):\(origin.port)/image?key=serve-resolved-refused"
        let refused = try await Self.serving([]) { port in
            try ServeCommandTests.get(port: port, path: Self.path(refusedSource))
        }
        #expect(refused.status == 403, "\(refused.head)\n\(refused.body)")
        #expect(refused.body == "the source resolved to a non-public address\n")
        #expect(try origin.requestCount(prefix: "/") == 0)

        let allowedSource = "http://\(name):\(origin.port)/image?key=serve-resolved-allowed"
        let allowed = try await Self.serving(["--allow-private-network"]) { port in
            try ServeCommandTests.get(port: port, path: Self.path(allowedSource))
        }
        #expect(allowed.status == 200, "\(allowed.head)\n\(allowed.body)")
        #expect(try origin.requestCount(prefix: "/image?key=serve-resolved-allowed") == 1)
    }

    /// A 40 MiB source, under the loader's own 50 MiB default but over --max-src-bytes 1M, with
    /// its Content-Length or chunked: 422, and the download stopped early (the origin saw the
    /// client hang up, having written less than the body; a cap checked only after the download
    /// would have taken all of it).
    @Test(arguments: ["send=41943040", "send=41943040&chunked=1"])
    func aSourceOverTheByteCapStopsWhileItArrives(_ shape: String) async throws {
        let origin = try await offPool { try FaultServer() }
        defer { origin.stop() }
        let key = "serve-cap-\(UUID().uuidString)"
        let source = origin.url("/big?key=\(key)&\(shape)").absoluteString
        let response = try await Self.serving(["--allow-private-network", "--max-src-bytes", "1M"]) { port in
            try ServeCommandTests.get(port: port, path: Self.path(source))
        }
        #expect(response.status == 422, "\(response.head)\n\(response.body)")
        #expect(response.body == "the source is larger than 1048576 bytes\n")
        let written = try await offPool { try origin.bytesWritten(key: key) }
        #expect(written.finished && written.hungUp)
        #expect(written.written < 32 << 20, "\(written.written) bytes written of 40 MiB")
        #expect(try origin.requestCount(prefix: "/big?key=\(key)") == 1, "not retried")
    }

    @Test func theByteCapMustBeAPositiveSize() async {
        for value in ["0", "lots"] {
            let (code, console) = await runPictor(["serve", "--insecure-unsigned", "--no-cache", "--max-src-bytes", value])
            #expect(code == 64)
            #expect(console.errors.contains("for '--max-src-bytes'"), "\(console.errors)")
        }
    }
}
