import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import PictorTestSupport
import Testing

/// Local URLs (`file:`, `data:`), read by ``DataLoader`` itself with no transport.
@Suite(.timeLimit(.minutes(5)))
struct LocalDataLoaderTests {
    let loader = LoadingFixtures.loader()

    @Test func fileURLsAreReadFromDisk() async throws {
        let url = LoadingFixtures.corpus.appendingPathComponent("pngsuite/basn2c08.png")
        let expected = try Data(contentsOf: url)
        let progress = ProgressRecorder()
        let (data, response) = try await loader.data(for: URLRequest(url: url), progress: { progress.record(Data(), $0) })
        #expect(data == expected)
        #expect(response.expectedContentLength == expected.count)
        #expect(progress.recorded.last == TransferProgress(completed: Int64(expected.count), total: Int64(expected.count)))
    }

    @Test func fileURLsAreNotHeldToTheHTTPSizeCap() async throws {
        // A local file larger than the HTTP cap still loads (the decoder's pixel guard applies).
        let url = LoadingFixtures.corpus.appendingPathComponent("pngsuite/basn2c08.png")
        let size = try Data(contentsOf: url).count
        let loader = LoadingFixtures.loader { $0.maximumResponseSize = Int64(size / 2) }
        let (data, _) = try await loader.data(for: URLRequest(url: url))
        #expect(data.count == size)
    }

    @Test func missingFileIsATransportError() async throws {
        await #expect(throws: DataLoadingError.transport(code: URLError.fileDoesNotExist.rawValue, message: "file does not exist")) {
            _ = try await loader.data(for: URLRequest(url: URL(fileURLWithPath: "/nonexistent/\(UUID()).png")))
        }
    }

    @Test func aFIFOIsRefusedInsteadOfBlocking() async throws {
        // A newcomer's `pictor fetch /tmp/fifo` (no writer) hung past every deadline in open(2).
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-fifo-\(UUID())").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        await #expect(throws: DataLoadingError.transport(code: URLError.fileIsDirectory.rawValue, message: "not a regular file")) {
            _ = try await loader.data(for: URLRequest(url: URL(fileURLWithPath: path)))
        }
    }

    @Test func dataURLsAreDecoded() async throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        let url = URL(string: "data:image/png;base64,\(png.base64EncodedString())")!
        let (data, response) = try await loader.data(for: URLRequest(url: url))
        #expect(data == png)
        #expect(response.mimeType == "image/png")
        let (text, _) = try LocalDataLoader.loadDataURL(URL(string: "data:,Hello%20there")!, progress: nil)
        #expect(String(decoding: text, as: UTF8.self) == "Hello there")
    }
}

/// The URLSession transport: one exchange, limits, cancellation, error mapping.
@Suite(.timeLimit(.minutes(5)))
struct URLSessionTransportTests {
    let transport = URLSessionTransport()

    func send(_ url: URL, idle: Double = 30, timeout: Double = 60, cap: Int64? = nil) async throws -> TransportResponse {
        try await transport.send(TransportRequest(urlRequest: URLRequest(url: url), idleTimeout: idle, timeout: timeout, maximumBodySize: cap))
    }

    @Test func timeoutsAreRoundedUpToWholeSeconds() {
        #expect(URLSessionTransport.wholeSeconds(0.5) == 1)
        #expect(URLSessionTransport.wholeSeconds(1.5) == 2)
        #expect(URLSessionTransport.wholeSeconds(3) == 3)
        #expect(URLSessionTransport.wholeSeconds(0) == 1)
    }

    @Test(.enabled(if: LoadingFixtures.hasFaultServer))
    func subSecondIdleTimeoutStillAllowsAFastResponse() async throws {
        // URLSession alone would fail at once with a 0.5 s timeout (truncated to 0).
        let answer = try await send(LoadingFixtures.faultServer!.url("/delay?ms=100"), idle: 0.5)
        #expect(ImageFormat.sniff(answer.body) == .png)
    }

    @Test(.enabled(if: LoadingFixtures.hasFaultServer))
    func idleTimeoutMapsToIdleTimeout() async throws {
        await #expect(throws: DataLoadingError.idleTimeout(seconds: 1)) {
            _ = try await send(LoadingFixtures.faultServer!.url("/delay?ms=4000&k=\(LoadingFixtures.key())"), idle: 1)
        }
    }

    @Test(.enabled(if: LoadingFixtures.hasFaultServer))
    func theOverallTimeoutIsEnforced() async throws {
        let url = LoadingFixtures.faultServer!.url("/drip?chunks=40&ms=200&size=8000&k=\(LoadingFixtures.key())")
        await #expect(throws: DataLoadingError.timedOut(seconds: 1)) { _ = try await send(url, idle: 5, timeout: 1) }
    }

    @Test(.enabled(if: LoadingFixtures.hasFaultServer))
    func cancellationThrowsCancellationError() async throws {
        let server = LoadingFixtures.faultServer!
        let key = LoadingFixtures.key()
        defer { try? server.release(key: key) }
        let task = Task { try await send(server.url("/hold?key=\(key)")) }
        while try server.requestCount(prefix: "/hold?key=\(key)") == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }

    @Test func cancelledBeforeStartThrowsCancellationError() async throws {
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await send(URL(string: "http://127.0.0.1:1/")!)
        }
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }

    @Test(.enabled(if: LoadingFixtures.hasFaultServer))
    func truncatedBodyMapsToTruncated() async throws {
        await #expect(throws: DataLoadingError.truncated(received: 40, expected: 1098)) {
            _ = try await send(LoadingFixtures.faultServer!.url("/truncated?send=40&pad=1000"))
        }
    }

    @Test func connectionRefusedIsATransportError() async throws {
        await #expect {
            _ = try await send(URL(string: "http://127.0.0.1:1/a.png")!)
        } throws: { error in
            (error as? DataLoadingError)?.transportCode == URLError.cannotConnectToHost.rawValue
        }
    }

    @Test(.enabled(if: LoadingFixtures.hasFaultServer))
    func redirectsAreReturnedNotFollowed() async throws {
        let answer = try await send(LoadingFixtures.faultServer!.url("/redirect?n=1"))
        #expect(answer.response.statusCode == 302)
        #expect(answer.response.value(forHTTPHeaderField: "Location") == "/image")
    }

    @Test func onlyHTTPURLsAreSent() async throws {
        await #expect(throws: DataLoadingError.unsupportedURL) { _ = try await send(URL(fileURLWithPath: "/etc/passwd")) }
    }

    @Test(.enabled(if: LoadingFixtures.hasFaultServer))
    func aFinishedExchangeKeepsNothingAliveUntilItsDeadline() async throws {
        // The overall deadline's timer held the exchange's state (the whole body, the task and
        // through it the session and its delegate) until the deadline passed, an hour here,
        // long after the exchange ended: a prefetch kept a minute of bodies in memory by default.
        weak var session: URLSession?
        weak var delegate: URLSessionTransport.SessionDelegate?
        do {
            let transport = URLSessionTransport()
            session = transport.session
            delegate = transport.delegate
            let answer = try await transport.send(TransportRequest(
                urlRequest: URLRequest(url: LoadingFixtures.faultServer!.url("/image")), idleTimeout: 30, timeout: 3600))
            #expect(answer.response.statusCode == 200)
        }
        // The transport is gone; its session is freed once the session's queues have let go.
        let deadline = ContinuousClock.now + .seconds(60)
        while session != nil || delegate != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(session == nil, "something still holds the session of a dropped transport")
        #expect(delegate == nil, "something still holds the session's delegate")
    }

    @Test func noCookiesAreStoredOrSent() {
        #expect(transport.session.configuration.httpCookieStorage == nil)
        #expect(transport.session.configuration.urlCache == nil)
        #expect(transport.session.configuration.httpShouldSetCookies == false)
    }
}
