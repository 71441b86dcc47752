import Foundation
import PictorServer
import PictorTestSupport
import Testing
@testable import PictorCLI

/// `--ca-file`, `--ca-path`, `--cert` and `--key`, and `CURL_CA_BUNDLE`, `SSL_CERT_FILE` and
/// `SSL_CERT_DIR` read as curl reads them, against nginx over HTTPS (HTTP/2 offered) with a CA
/// the tests make; loopback only.
@Suite(.enabled(if: NginxServer.isAvailable && TestCertificateAuthority.isAvailable, "needs nginx and openssl"),
       .timeLimit(.minutes(5)))
struct TLSOptionTests {
    /// A real 1×1 PNG.
    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

    /// Every variable that names CAs, unset: a test names the ones it sets, whatever the
    /// environment of the test process holds (an empty variable is unset).
    static let noVariables = ["CURL_CA_BUNDLE": "", "SSL_CERT_FILE": "", "SSL_CERT_DIR": ""]

    /// A folder with `one.png`, a CA, and nginx serving the folder over HTTPS under it.
    struct Site {
        let folder: URL
        let authority: TestCertificateAuthority
        /// Another CA, which signed nothing nginx shows.
        let other: TestCertificateAuthority
        let server: HTTPSNginxServer

        var url: String { server.url("/one.png").absoluteString }

        init(requiresClientCertificate: Bool = false) throws {
            folder = try makeTemporaryDirectory("tls")
            try TLSOptionTests.png.write(to: folder.appendingPathComponent("one.png"))
            authority = try TestCertificateAuthority()
            other = try TestCertificateAuthority(name: "Other CA")
            server = try HTTPSNginxServer(root: folder, authority: authority, requiresClientCertificate: requiresClientCertificate)
        }

        func stop() {
            server.stop()
            authority.remove()
            other.remove()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    func site(requiresClientCertificate: Bool = false) async throws -> Site {
        try await offPool { try Site(requiresClientCertificate: requiresClientCertificate) }
    }

    /// Runs `pictor` in-process with `environment` (and no usable home directory).
    func run(_ arguments: [String], environment: [String: String] = [:]) async -> (Int32, RecordingConsole) {
        let console = RecordingConsole()
        let merged = Self.noVariables.merging(["HOME": "/nonexistent-home"]) { $1 }.merging(environment) { $1 }
        let code = await PictorCommand.run(arguments, console: console.console, environment: merged)
        return (code, console)
    }

    @Test func withoutTheCAFetchFailsNamingTheCertificate() async throws {
        let site = try await site()
        defer { site.stop() }
        let (code, console) = await run(["fetch", site.url, "--no-cache"])
        #expect(code == 1)
        #expect(console.errors.contains("failed: "), "\(console.errors)")
        #expect(console.errors.contains("server certificate untrusted"), "\(console.errors)")
        #expect(console.errors.contains(
            "certificate subject: \(site.authority.serverSubject); issuer: \(site.authority.subject)"), "\(console.errors)")
    }

    @Test(arguments: ["--ca-file", "--ca-path"])
    func fetchTrustsTheGivenCA(option: String) async throws {
        let site = try await site()
        defer { site.stop() }
        let location = option == "--ca-file" ? site.authority.certificate.path : site.authority.hashedDirectory.path
        let (code, console) = await run(["fetch", site.url, "--no-cache", option, location])
        #expect(code == 0, "\(console.errors)")
        #expect(console.output.contains("network  1×1"), "\(console.output)")
    }

    @Test func prefetchTrustsTheGivenCA() async throws {
        let site = try await site()
        defer { site.stop() }
        let (code, console) = await run(["prefetch", site.url, "--no-cache", "--ca-path", site.authority.hashedDirectory.path])
        #expect(code == 0, "\(console.errors)")
        let (untrusted, _) = await run(["prefetch", site.url, "--no-cache", "--ca-file", site.other.certificate.path])
        #expect(untrusted == 1)
    }

    /// The built binary reads its own environment: each variable as curl reads it, and an
    /// option wins over every variable.
    @Test(.enabled(if: BinaryRunner.isAvailable, "needs the built pictor binary"))
    func theBinaryReadsTheVariablesAsCurlDoesAndAnOptionWins() async throws {
        let site = try await site()
        defer { site.stop() }
        let ca = site.authority.certificate.path, hashed = site.authority.hashedDirectory.path
        let other = site.other.certificate.path
        let cases: [(arguments: [String], environment: [String: String], loads: Bool)] = [
            ([], [:], false),
            ([], ["SSL_CERT_FILE": ca], true),
            ([], ["SSL_CERT_DIR": hashed], true),
            ([], ["CURL_CA_BUNDLE": ca], true),
            // CURL_CA_BUNDLE, when set, is the one read.
            ([], ["CURL_CA_BUNDLE": other, "SSL_CERT_FILE": ca, "SSL_CERT_DIR": hashed], false),
            // An option wins over every variable, and then none is read.
            (["--ca-file", ca], ["CURL_CA_BUNDLE": other, "SSL_CERT_FILE": other], true),
            (["--ca-file", other], ["SSL_CERT_FILE": ca], false),
            (["--ca-file", other], ["SSL_CERT_DIR": hashed], false),
            (["--ca-path", hashed], ["CURL_CA_BUNDLE": other], true),
        ]
        for example in cases {
            let outcome = try await BinaryRunner.run(["fetch", site.url, "--no-cache"] + example.arguments,
                                                     environment: TLSOptionTests.noVariables.merging(example.environment) { $1 })
            #expect(outcome.status == (example.loads ? 0 : 1), "\(example): \(outcome.stderr)")
            if !example.loads {
                #expect(outcome.stderr.contains("issuer: \(site.authority.subject)"), "\(example): \(outcome.stderr)")
            }
        }
    }

    @Test func aServerThatRequiresAClientCertificateGetsOne() async throws {
        let site = try await site(requiresClientCertificate: true)
        defer { site.stop() }
        let ca = ["--ca-file", site.authority.certificate.path]
        let (without, withoutConsole) = await run(["fetch", site.url, "--no-cache"] + ca)
        #expect(without == 1)
        #expect(withoutConsole.errors.contains("HTTP status 400"), "nginx refuses the request: \(withoutConsole.errors)")
        let (foreign, _) = await run(["fetch", site.url, "--no-cache", "--cert", site.other.clientCertificate.path,
                                      "--key", site.other.clientKey.path] + ca)
        #expect(foreign == 1, "a certificate from a CA the server does not trust")
        let client = ["--cert", site.authority.clientCertificate.path, "--key", site.authority.clientKey.path]
        let (code, console) = await run(["fetch", site.url, "--no-cache"] + client + ca)
        #expect(code == 0, "\(console.errors)")
        let (prefetch, prefetchConsole) = await run(["prefetch", site.url, "--no-cache"] + client + ca)
        #expect(prefetch == 0, "\(prefetchConsole.errors)")
    }

    @Test func servePassesTheCAToItsSources() async throws {
        let site = try await site()
        defer { site.stop() }
        for (trusts, expected) in [(true, 200), (false, 502)] {
            let console = RecordingConsole()
            let context = CommandContext(console: console.console, environment: ["HOME": "/nonexistent-home"].merging(Self.noVariables) { $1 })
            let shutdown = ShutdownSignal(signals: [])
            let (addresses, addressSink) = AsyncStream<ListenAddress>.makeStream()
            let arguments = ["--listen", "127.0.0.1:0", "--no-cache", "--allow-private-network", "--insecure-unsigned"]
                + (trusts ? ["--ca-file", site.authority.certificate.path] : [])
            let serving = Task {
                try await ServeCommand.serve(arguments, context: context, shutdown: shutdown, listening: { addressSink.yield($0) })
            }
            var iterator = addresses.makeAsyncIterator()
            guard case .tcp(_, let port)? = await iterator.next() else {
                Issue.record("no address: \(console.errors)")
                shutdown.trigger()
                _ = try? await serving.value
                return
            }
            let path = "/insecure/rs:fit:8:8/plain/" + site.url
            let status = try await offPool { try ServeCommandTests.get(port: port, path: path).status }
            shutdown.trigger()
            #expect(try await serving.value == 0)
            #expect(status == expected, "\(console.errors)")
        }
    }

    @Test(arguments: [
        (["--key", "/k.pem"], [String: String](), "'--key' is the key of a client certificate: pass '--cert FILE' too"),
        (["--ca-file", ""], [:], "empty value for '--ca-file'"),
        (["--ca-file", "/nonexistent/ca.pem"], [:], "invalid value '/nonexistent/ca.pem' for '--ca-file': no such file"),
        (["--ca-path", "/nonexistent"], [:], "invalid value '/nonexistent' for '--ca-path': no such directory"),
        (["--ca-file", "/"], [:], "invalid value '/' for '--ca-file': a directory, not a file"),
        (["--cert", "/nonexistent/client.pem"], [:], "invalid value '/nonexistent/client.pem' for '--cert': no such file"),
        ([], ["SSL_CERT_FILE": "/nonexistent/ca.pem"], "SSL_CERT_FILE=/nonexistent/ca.pem names no usable CA file: no such file"),
        ([], ["CURL_CA_BUNDLE": "/"], "CURL_CA_BUNDLE=/ names no usable CA file: a directory, not a file"),
        (["--ca-file", "/dev/null"], [:], "invalid value '/dev/null' for '--ca-file': holds no PEM certificate"),
        ([], ["SSL_CERT_FILE": "/dev/null"], "SSL_CERT_FILE=/dev/null names no usable CA file: holds no PEM certificate"),
        (["--ca-file", "/etc/passwd"], [:], "invalid value '/etc/passwd' for '--ca-file': holds no PEM certificate"),
        (["--cert", "/dev/null"], [:], "invalid value '/dev/null' for '--cert': holds no PEM certificate"),
        ([], ["SSL_CERT_DIR": "/nonexistent"], "SSL_CERT_DIR=/nonexistent names no usable CA directory: no such directory"),
    ])
    func aLocationThatCannotBeUsedIsRefusedBeforeAnyLoad(arguments: [String], environment: [String: String], message: String) async {
        let (code, console) = await run(["fetch", "https://127.0.0.1:1/a.png", "--no-cache"] + arguments, environment: environment)
        #expect(code == 64)
        #expect(console.errors.contains(message), "\(console.errors)")
    }
}
