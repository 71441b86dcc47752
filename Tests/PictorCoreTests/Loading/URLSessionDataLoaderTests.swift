import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import PictorTestSupport
import Testing

/// The URLSession transport: local URLs, cancellation, timeouts, error mapping, redirects.
@Suite(.timeLimit(.minutes(1)))
struct URLSessionDataLoaderTests {
    let loader = URLSessionDataLoader()

    @Test func fileURLsAreReadFromDisk() async throws {
        let url = LoadingFixtures.corpus.appendingPathComponent("pngsuite/basn2c08.png")
        let expected = try Data(contentsOf: url)
        let progress = ProgressRecorder()
        let response = try await loader.loadData(for: URLRequest(url: url), didReceiveChunk: progress.record)
        #expect(progress.data == expected)
        #expect(response.expectedContentLength == expected.count)
        #expect(progress.recorded.last == TransferProgress(completed: Int64(expected.count), total: Int64(expected.count)))
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
        let (text, _) = try await loader.data(for: URLRequest(url: URL(string: "data:,Hello%20there")!))
        #expect(String(decoding: text, as: UTF8.self) == "Hello there")
    }

    @Test func timeoutsAreRoundedUpToWholeSeconds() {
        #expect(URLSessionDataLoader.wholeSeconds(0.5) == 1)
        #expect(URLSessionDataLoader.wholeSeconds(1.5) == 2)
        #expect(URLSessionDataLoader.wholeSeconds(3) == 3)
        #expect(URLSessionDataLoader.wholeSeconds(0) == 1)
        #expect(URLSessionDataLoader.wholeSeconds(.infinity) == 1)
    }

    @Test(.enabled(if: LoadingFixtures.hasFaultServer))
    func subSecondRequestTimeoutStillAllowsAFastResponse() async throws {
        // URLSession alone would fail at once with a 0.5 s timeout (truncated to 0).
        var request = URLRequest(url: LoadingFixtures.faultServer!.url("/delay?ms=100"))
        request.timeoutInterval = 0.5
        let (data, _) = try await loader.data(for: request)
        #expect(ImageFormat.sniff(data) == .png)
    }

    @Test(.enabled(if: LoadingFixtures.hasFaultServer))
    func idleTimeoutMapsToIdleTimeout() async throws {
        var request = URLRequest(url: LoadingFixtures.faultServer!.url("/delay?ms=4000&k=\(LoadingFixtures.key())"))
        request.timeoutInterval = 1
        await #expect(throws: DataLoadingError.idleTimeout(seconds: 1)) { _ = try await loader.data(for: request) }
    }

    @Test(.enabled(if: LoadingFixtures.hasFaultServer))
    func cancellationThrowsCancellationError() async throws {
        let server = LoadingFixtures.faultServer!
        let key = LoadingFixtures.key()
        defer { try? server.release(key: key) }
        let task = Task { try await loader.data(for: URLRequest(url: server.url("/hold?key=\(key)"))) }
        while try server.requestCount(prefix: "/hold?key=\(key)") == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }

    @Test func cancelledBeforeStartThrowsCancellationError() async throws {
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await loader.data(for: URLRequest(url: URL(string: "http://127.0.0.1:1/")!))
        }
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }

    @Test(.enabled(if: LoadingFixtures.hasFaultServer))
    func truncatedBodyMapsToTruncated() async throws {
        let url = LoadingFixtures.faultServer!.url("/truncated?send=40&pad=1000")
        await #expect(throws: DataLoadingError.truncated(received: 40, expected: 1098)) {
            _ = try await loader.data(for: URLRequest(url: url))
        }
    }

    @Test func connectionRefusedIsATransportError() async throws {
        await #expect {
            _ = try await loader.data(for: URLRequest(url: URL(string: "http://127.0.0.1:1/a.png")!))
        } throws: { error in
            if case DataLoadingError.transport(let code, _)? = error as? DataLoadingError { return code == URLError.cannotConnectToHost.rawValue }
            return false
        }
    }

    @Test(.enabled(if: LoadingFixtures.hasFaultServer))
    func redirectsFollowedWithLimitAndLoopDetection() async throws {
        let server = LoadingFixtures.faultServer!
        var configuration = URLSessionDataLoader.Configuration()
        configuration.maximumRedirects = 3
        let loader = URLSessionDataLoader(configuration: configuration)
        let (_, ok) = try await loader.data(for: URLRequest(url: server.url("/redirect?n=3")))
        #expect((ok as? HTTPURLResponse)?.statusCode == 200)
        await #expect(throws: DataLoadingError.tooManyRedirects) {
            _ = try await loader.data(for: URLRequest(url: server.url("/redirect?n=4")))
        }
        await #expect(throws: DataLoadingError.tooManyRedirects) {
            _ = try await loader.data(for: URLRequest(url: server.url("/loop?hop=0")))
        }
    }

    @Test(.enabled(if: LoadingFixtures.hasFaultServer))
    func notFollowingRedirectsReturnsThe3xx() async throws {
        var configuration = URLSessionDataLoader.Configuration()
        configuration.followsRedirects = false
        let loader = URLSessionDataLoader(configuration: configuration)
        let (_, response) = try await loader.data(for: URLRequest(url: LoadingFixtures.faultServer!.url("/redirect?n=1")))
        #expect((response as? HTTPURLResponse)?.statusCode == 302)
    }

    @Test func noCookiesAreStoredOrSent() {
        #expect(loader.session.configuration.httpCookieStorage == nil)
        #expect(loader.session.configuration.urlCache == nil)
        #expect(loader.session.configuration.httpShouldSetCookies == false)
    }
}
