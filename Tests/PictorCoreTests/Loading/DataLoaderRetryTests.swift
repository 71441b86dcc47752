import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorCore
import PictorTestSupport
import Testing

/// Retries, redirects, failed-URL memory and request modifiers of ``DataLoader``.
@Suite(.enabled(if: LoadingFixtures.hasFaultServer), .timeLimit(.minutes(5)))
struct DataLoaderRetryTests {
    let server = LoadingFixtures.faultServer!

    @Test func serverErrorThenSuccessIsRetriedWithBackoff() async throws {
        let sleeps = SleepRecorder()
        let loader = LoadingFixtures.loader(sleeps: sleeps)
        let path = "/flaky?key=\(LoadingFixtures.key())&fail=2"
        let (data, _) = try await loader.data(for: URLRequest(url: server.url(path)))
        #expect(ImageFormat.sniff(data) == .png)
        #expect(try server.requestCount(prefix: path) == 3)
        // Equal jitter around 0.5 s then 1 s.
        let delays = sleeps.recorded
        #expect(delays.count == 2)
        #expect((0.25...0.5).contains(delays[0]))
        #expect((0.5...1.0).contains(delays[1]))
    }

    @Test func persistentServerErrorGivesUpAfterTwoRetries() async throws {
        let loader = LoadingFixtures.loader()
        let path = "/flaky?key=\(LoadingFixtures.key())&fail=100&code=503"
        await #expect(throws: DataLoadingError.statusCode(503)) {
            _ = try await loader.data(for: URLRequest(url: server.url(path)))
        }
        #expect(try server.requestCount(prefix: path) == 3)
    }

    @Test(arguments: [400, 401, 403, 404, 410])
    func clientErrorsAreNeverRetried(code: Int) async throws {
        let loader = LoadingFixtures.loader()
        let path = "/flaky?key=\(LoadingFixtures.key())&fail=100&code=\(code)"
        await #expect(throws: DataLoadingError.statusCode(code)) {
            _ = try await loader.data(for: URLRequest(url: server.url(path)))
        }
        #expect(try server.requestCount(prefix: path) == 1)
    }

    @Test func tooManyRequestsHonoursRetryAfter() async throws {
        let sleeps = SleepRecorder()
        let loader = LoadingFixtures.loader(sleeps: sleeps)
        let path = "/retry-after?key=\(LoadingFixtures.key())&fail=1&after=7"
        _ = try await loader.data(for: URLRequest(url: server.url(path)))
        #expect(sleeps.recorded == [7])
        #expect(try server.requestCount(prefix: path) == 2)
    }

    @Test func retryAfterLongerThanTheCapFailsAtOnce() async throws {
        let loader = LoadingFixtures.loader { $0.retryPolicy.maximumRetryAfter = 5 }
        let path = "/retry-after?key=\(LoadingFixtures.key())&fail=1&after=3600"
        await #expect(throws: DataLoadingError.statusCode(429)) {
            _ = try await loader.data(for: URLRequest(url: server.url(path)))
        }
        #expect(try server.requestCount(prefix: path) == 1)
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func redirectChainsAreFollowed(code: Int) async throws {
        let loader = LoadingFixtures.loader()
        let (data, response) = try await loader.data(for: URLRequest(url: server.url("/redirect?n=3&code=\(code)")))
        #expect(ImageFormat.sniff(data) == .png)
        #expect(response.url?.path == "/image")
    }

    @Test func redirectsBeyondTheLimitFail() async throws {
        let loader = LoadingFixtures.loader { $0.maximumRedirects = 5 }
        await #expect(throws: DataLoadingError.tooManyRedirects) {
            _ = try await loader.data(for: URLRequest(url: server.url("/redirect?n=6")))
        }
        _ = try await loader.data(for: URLRequest(url: server.url("/redirect?n=5")))
    }

    @Test func redirectLoopIsDetected() async throws {
        let loader = LoadingFixtures.loader()
        let key = LoadingFixtures.key()
        await #expect(throws: DataLoadingError.tooManyRedirects) {
            _ = try await loader.data(for: URLRequest(url: server.url("/loop?hop=0&k=\(key)")))
        }
        #expect(try server.requestCount(prefix: "/loop") >= 2)
    }

    @Test func failedURLsAreRememberedWhenEnabled() async throws {
        let loader = LoadingFixtures.loader { $0.failedURLPolicy = DataLoader.FailedURLPolicy(timeToLive: 60) }
        let path = "/status?code=410&k=\(LoadingFixtures.key())"
        await #expect(throws: DataLoadingError.statusCode(410)) {
            _ = try await loader.data(for: URLRequest(url: server.url(path)))
        }
        await #expect(throws: DataLoadingError.knownFailure(statusCode: 410)) {
            _ = try await loader.data(for: URLRequest(url: server.url(path)))
        }
        #expect(try server.requestCount(prefix: path) == 1)
        loader.removeAllFailedURLs()
        await #expect(throws: DataLoadingError.statusCode(410)) {
            _ = try await loader.data(for: URLRequest(url: server.url(path)))
        }
    }

    @Test func failedURLsAreNotRememberedByDefault() async throws {
        let loader = LoadingFixtures.loader()
        let path = "/status?code=404&k=\(LoadingFixtures.key())"
        for _ in 0..<2 {
            await #expect(throws: DataLoadingError.statusCode(404)) {
                _ = try await loader.data(for: URLRequest(url: server.url(path)))
            }
        }
        #expect(try server.requestCount(prefix: path) == 2)
    }

    @Test func requestModifiersAddHeadersAndAcceptListsImageFormats() async throws {
        let loader = LoadingFixtures.loader {
            $0.requestModifier = { request in
                var request = request
                request.setValue("loader", forHTTPHeaderField: "X-Loader")
                return request
            }
        }
        let path = "/image?k=\(LoadingFixtures.key())"
        _ = try await loader.data(for: URLRequest(url: server.url(path)))
        let headers = try #require(try server.requests(prefix: path).first).headers
        #expect(headers["x-loader"] == "loader")
        #expect(headers["accept"] == DataLoader.defaultAcceptHeader)
        #expect(headers["cookie"] == nil)
    }
}
