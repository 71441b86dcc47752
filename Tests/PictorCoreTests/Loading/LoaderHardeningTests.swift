import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import PictorTestSupport
import Testing

/// Bugs found by testing the loading layer from outside: redirects to local files, per-attempt
/// timeouts, unbounded downloads past the size cap, data: URL errors, the User-Agent.
@Suite(.timeLimit(.minutes(5)), .enabled(if: LoadingFixtures.hasFaultServer))
struct LoaderHardeningTests {
    let server = LoadingFixtures.faultServer!

    static let localImage = LoadingFixtures.corpus.appendingPathComponent("pngsuite/basn2c08.png")

    static func redirect(_ server: FaultServer, to target: String) -> URL {
        server.url("/absolute-redirect?k=\(LoadingFixtures.key())&to=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
    }

    // MARK: 1. Redirects only http → http(s), https → https

    @Test(arguments: ["file:///etc/passwd", "file:///nonexistent/secret.png", localImage.absoluteString, "data:image/png;base64,iVBORw0KGgo=", "ftp://127.0.0.1/a.png"])
    func dataLoaderRefusesARedirectToANonHTTPScheme(target: String) async throws {
        let loader = LoadingFixtures.loader()
        let scheme = String(target.prefix { $0 != ":" })
        await #expect(throws: DataLoadingError.redirectNotAllowed(fromScheme: "http", toScheme: scheme)) {
            _ = try await loader.data(for: URLRequest(url: Self.redirect(server, to: target)))
        }
    }

    @Test func redirectErrorsDoNotTellWhetherALocalFileExists() async throws {
        let loader = LoadingFixtures.loader()
        var messages: [String] = []
        for target in ["file:///etc/passwd", "file:///nonexistent/\(UUID()).png"] {
            do { _ = try await loader.data(for: URLRequest(url: Self.redirect(server, to: target))) } catch { messages.append("\(error)") }
        }
        #expect(messages.count == 2)
        #expect(Set(messages).count == 1)
    }

    @Test func schemePolicy() {
        func refusal(_ a: String, _ b: String) -> DataLoadingError? { RedirectPolicy.refusal(from: URL(string: a), to: URL(string: b)) }
        #expect(refusal("http://a/x", "http://b/y") == nil)
        #expect(refusal("http://a/x", "https://b/y") == nil)
        #expect(refusal("HTTPS://a/x", "https://b/y") == nil)
        #expect(refusal("https://a/x", "http://b/y") == .redirectNotAllowed(fromScheme: "https", toScheme: "http"))
        #expect(refusal("https://a/x", "file:///etc/passwd") == .redirectNotAllowed(fromScheme: "https", toScheme: "file"))
    }

    @Test func anHTTPSToHTTPDowngradeIsRefused() async throws {
        let transport = MockTransport()
        let secure = URL(string: "https://images.example/a.png")!
        let plain = URL(string: "http://images.example/a.png")!
        transport.answer(secure, MockTransport.Answer(statusCode: 302, headers: ["Location": plain.absoluteString]))
        transport.answer(plain, MockTransport.Answer(body: try Data(contentsOf: Self.localImage)))
        let loader = DataLoader(transport: transport)
        await #expect(throws: DataLoadingError.redirectNotAllowed(fromScheme: "https", toScheme: "http")) {
            _ = try await loader.data(for: URLRequest(url: secure))
        }
        #expect(transport.requests.count == 1)
    }

    @Test func httpToHTTPRedirectsStillWork() async throws {
        let loader = LoadingFixtures.loader()
        let (data, _) = try await loader.data(for: URLRequest(url: Self.redirect(server, to: server.url("/image").absoluteString)))
        #expect(ImageFormat.sniff(data) == .png)
    }

    // MARK: 2. One overall deadline, retries included

    @Test func aStalledServerFailsAtTheOverallDeadlineNotOncePerAttempt() async throws {
        let key = LoadingFixtures.key()
        let sleeps = SleepRecorder()
        let loader = LoadingFixtures.loader({ $0.timeout = 1.5 }, sleeps: sleeps)
        await #expect(throws: DataLoadingError.timedOut(seconds: 1.5)) {
            _ = try await loader.data(for: URLRequest(url: server.url("/stall?key=\(key)")))
        }
        // Before the fix: 3 attempts of 1.5 s each (retries after a per-attempt timeout).
        #expect(try server.requestCount(prefix: "/stall?key=\(key)") == 1)
        #expect(sleeps.recorded.isEmpty)
        #expect("\(DataLoadingError.timedOut(seconds: 1.5))".contains("overall"))
        // The transfer itself was stopped (URLSession spins a core while it waits).
        let result = try server.bytesWritten(key: key)
        #expect(result.finished && result.hungUp)
    }

    @Test func aRetryThatCannotStartBeforeTheDeadlineIsNotMade() async throws {
        let key = LoadingFixtures.key()
        let sleeps = SleepRecorder()
        let loader = LoadingFixtures.loader({
            $0.timeout = 30
            $0.retryPolicy = DataLoader.RetryPolicy(maximumRetries: 2, baseDelay: 100, maximumDelay: 100)
        }, sleeps: sleeps)
        await #expect(throws: DataLoadingError.statusCode(500)) {
            _ = try await loader.data(for: URLRequest(url: server.url("/flaky?key=\(key)&fail=5")))
        }
        #expect(try server.requestCount(prefix: "/flaky?key=\(key)") == 1)
        #expect(sleeps.recorded.isEmpty)
    }

    // MARK: 4. The size cap stops the transfer, not just the result

    /// The server sends 4 MiB of a declared 600 MiB, then waits for the client to hang up: the
    /// loader must close the connection itself (not wait for the rest, nor time out).
    @Test func anOversizedContentLengthClosesTheConnection() async throws {
        let key = LoadingFixtures.key()
        let loader = LoadingFixtures.loader { $0.maximumResponseSize = 1024 * 1024 }
        await #expect(throws: DataLoadingError.responseTooLarge(limit: 1024 * 1024)) {
            _ = try await loader.data(for: URLRequest(url: server.url("/big?key=\(key)&declare=629145600&send=4194304&stall=1")))
        }
        let result = try server.bytesWritten(key: key)
        #expect(result.finished && result.hungUp)
        #expect(try server.requestCount(prefix: "/big?key=\(key)") == 1)
    }

    @Test func aChunkedBodyPastTheLimitClosesTheConnection() async throws {
        let key = LoadingFixtures.key()
        let loader = LoadingFixtures.loader { $0.maximumResponseSize = 1024 * 1024 }
        await #expect(throws: DataLoadingError.responseTooLarge(limit: 1024 * 1024)) {
            _ = try await loader.data(for: URLRequest(url: server.url("/big?key=\(key)&send=4194304&chunked=1&stall=1")))
        }
        let result = try server.bytesWritten(key: key)
        #expect(result.finished && result.hungUp)
    }

    // MARK: 5. Malformed data: URLs

    @Test(arguments: ["data:image/png;base64,%%%%", "data:image/png;base64,iVBORw0K!!!", "data:image/png;base64,A", "data:image/png;base64"])
    func malformedDataURLHasItsOwnError(string: String) async throws {
        let url = try #require(URL(string: string))
        await #expect(throws: DataLoadingError.malformedDataURL) {
            _ = try await LoadingFixtures.loader().data(for: URLRequest(url: url))
        }
        #expect("\(DataLoadingError.malformedDataURL)" == "malformed data: URL")
    }

    @Test func unpaddedBase64IsAccepted() async throws {
        let (data, _) = try LocalDataLoader.loadDataURL(URL(string: "data:text/plain;base64,SGk")!, progress: nil)
        #expect(data == Data("Hi".utf8))
    }

    // MARK: 6. User-Agent

    @Test func pictorsUserAgentIsSentByDefault() async throws {
        let path = "/image?k=\(LoadingFixtures.key())"
        _ = try await LoadingFixtures.loader().data(for: URLRequest(url: server.url(path)))
        let agent = try #require(try server.requests(prefix: path).first?.headers["user-agent"])
        #expect(agent == URLSessionTransport.defaultUserAgent)
        #expect(agent.hasPrefix("Pictor/"))
    }

    @Test func aRequestsOwnUserAgentIsKept() async throws {
        let path = "/image?k=\(LoadingFixtures.key())"
        var request = URLRequest(url: server.url(path))
        request.setValue("MyApp/2", forHTTPHeaderField: "User-Agent")
        _ = try await LoadingFixtures.loader().data(for: request)
        #expect(try server.requests(prefix: path).first?.headers["user-agent"] == "MyApp/2")
    }

    // MARK: 6. URLs with spaces or non-ASCII text are percent-encoded once

    @Test func typedURLsReachTheServerEncodedOnce() async throws {
        // Foundation's URL(string:) encodes the `%` of existing escapes too when the string also
        // has characters to encode ("%41 b" → "%2541%20b"), so typed text goes through
        // URLNormalization first (as the CLI does).
        let key = LoadingFixtures.key()
        let typed = "http://127.0.0.1:\(server.port)/image?k=\(key)&n=a b&m=caf\u{E9}&kept=%41%20"
        #expect(URL(string: typed)?.absoluteString.contains("%2541") == true, "if Foundation stops double-encoding, this guard can go")
        let url = try #require(URLNormalization.url(typed))
        _ = try await LoadingFixtures.loader().data(for: URLRequest(url: url))
        let target = try #require(try server.requests(prefix: "/image?k=\(key)").first?.target)
        #expect(target == "/image?k=\(key)&n=a%20b&m=caf%C3%A9&kept=%41%20")
    }

    @Test func aRedirectLocationWithSpacesIsEncodedOnce() async throws {
        let key = LoadingFixtures.key()
        // The server sends the Location header raw, with a space and an é in it.
        let location = "http://127.0.0.1:\(server.port)/image?k=\(key)&n=a b&kept=%41"
        _ = try await LoadingFixtures.loader().data(for: URLRequest(url: Self.redirect(server, to: location)))
        let target = try #require(try server.requests(prefix: "/image?k=\(key)").first?.target)
        #expect(target == "/image?k=\(key)&n=a%20b&kept=%41")
    }

    // MARK: 7. Failures that a new attempt repeats are not retried

    /// A shut-down transport, and a response that is not valid HTTP (conflicting lengths, a NUL
    /// in a header, an HTTP/0.9 reply), are the same on every attempt: the load fails at once,
    /// as the README's retry rules say (5xx, 429, timeouts, lost connections). A malformed
    /// response was retried twice.
    @Test(arguments: [
        DataLoadingError.transport(code: URLError.cancelled.rawValue, message: "the transport was shut down"),
        DataLoadingError.transport(code: URLError.badServerResponse.rawValue, message: "Nul byte in header"),
    ])
    func aFailureThatARetryWouldRepeatIsNotRetried(failure: DataLoadingError) async throws {
        let transport = MockTransport()
        let url = URL(string: "https://images.example/a.png")!
        transport.answer(url, error: failure)
        let loader = LoadingFixtures.loader()
        let retrying = DataLoader(transport: transport, configuration: loader.configuration)
        await #expect(throws: failure) { _ = try await retrying.data(for: URLRequest(url: url)) }
        #expect(transport.requests.count == 1)
        #expect(!failure.isTransient)
        #expect(DataLoadingError.transport(code: URLError.networkConnectionLost.rawValue, message: "").isTransient)
    }

    /// Only server errors (5xx), 408 and 429 are worth another attempt: a status past 599 is
    /// no server error, and was retried twice as one.
    @Test(arguments: [(500, true), (503, true), (599, true), (408, true), (429, true),
                      (600, false), (999, false), (404, false), (400, false), (101, false)])
    func onlyServerErrorStatusesAreRetried(status: Int, transient: Bool) {
        #expect(DataLoadingError.statusCode(status).isTransient == transient)
    }
}
