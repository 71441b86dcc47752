import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorCore
import PictorTestSupport
import Synchronization
import Testing

/// A settable clock for freshness tests.
final class TestClock: Sendable {
    private let current = Mutex(Date())
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Pictor's HTTP caching in ``ImageDataFetcher``, against the fault server.
@Suite(.enabled(if: LoadingFixtures.hasFaultServer), .timeLimit(.minutes(1)))
struct ImageDataFetcherTests {
    let server = LoadingFixtures.faultServer!
    let cache = InMemoryDataCache()
    let clock = TestClock()

    func fetcher(_ policy: ImageDataFetcher.CachePolicy = .http) -> ImageDataFetcher {
        var configuration = ImageDataFetcher.Configuration(cachePolicy: policy)
        let clock = self.clock
        configuration.now = { clock.now }
        return ImageDataFetcher(loader: LoadingFixtures.loader(), cache: cache, configuration: configuration)
    }

    func fetch(_ fetcher: ImageDataFetcher, _ path: String, cacheOnly: Bool = false, ignoreCached: Bool = false) async throws -> FetchedData {
        let url = server.url(path)
        return try await fetcher.fetchData(
            for: DataFetchRequest(urlRequest: URLRequest(url: url), cacheKey: url.absoluteString,
                                  ignoresCachedData: ignoreCached, isCacheOnly: cacheOnly)) { _ in }
    }

    @Test func freshEntryIsServedWithoutARequest() async throws {
        let fetcher = fetcher()
        let path = "/cache?cc=max-age%3D600&k=\(LoadingFixtures.key())"
        let first = try await fetch(fetcher, path)
        clock.advance(300)
        let second = try await fetch(fetcher, path)
        #expect(first.source == .network)
        #expect(second.source == .disk)
        #expect(second.data == first.data)
        #expect(first.metadata.format == .png)
        #expect(first.metadata.cacheControl == "max-age=600")
        #expect(try server.requestCount(prefix: path) == 1)
    }

    @Test func staleEntryWithETagIsRevalidatedAnd304RefreshesFreshness() async throws {
        // Given an entry with an ETag that is fresh for 60 s
        let fetcher = fetcher()
        let path = "/etag?key=\(LoadingFixtures.key())&cc=max-age%3D60&tag=abc"
        let first = try await fetch(fetcher, path)
        // When it goes stale
        clock.advance(120)
        let second = try await fetch(fetcher, path)
        // Then a conditional request got a 304 and the bytes came from the cache, fresh again
        #expect(second.source == .revalidated)
        #expect(second.data == first.data)
        let requests = try server.requests(prefix: path)
        #expect(requests.count == 2)
        #expect(requests.last?.headers["if-none-match"] == "\"abc\"")
        #expect(cache.updateCount == 1)
        #expect(cache.storeCount == 1)
        let third = try await fetch(fetcher, path)
        #expect(third.source == .disk)
        #expect(try server.requestCount(prefix: path) == 2)
    }

    @Test func staleEntryWithLastModifiedIsRevalidated() async throws {
        let fetcher = fetcher()
        let path = "/lastmod?key=\(LoadingFixtures.key())&cc=no-cache"
        _ = try await fetch(fetcher, path)
        let second = try await fetch(fetcher, path)
        #expect(second.source == .revalidated)
        let requests = try server.requests(prefix: path)
        #expect(requests.count == 2)
        #expect(requests.last?.headers["if-modified-since"] == "Wed, 21 Oct 2015 07:28:00 GMT")
    }

    @Test func noCacheIsRevalidatedOnEveryUse() async throws {
        let fetcher = fetcher()
        let path = "/etag?key=\(LoadingFixtures.key())&cc=no-cache"
        _ = try await fetch(fetcher, path)
        #expect(try await fetch(fetcher, path).source == .revalidated)
        #expect(try await fetch(fetcher, path).source == .revalidated)
        #expect(try server.requestCount(prefix: path) == 3)
    }

    @Test func noStoreIsNeverWrittenToDisk() async throws {
        let fetcher = fetcher()
        let path = "/cache?cc=no-store&k=\(LoadingFixtures.key())"
        #expect(try await fetch(fetcher, path).source == .network)
        #expect(try await fetch(fetcher, path).source == .network)
        #expect(cache.storeCount == 0)
        #expect(try server.requestCount(prefix: path) == 2)
    }

    @Test func ignoreHTTPHeadersKeepsEverythingUntilEvicted() async throws {
        let fetcher = fetcher(.ignoreHTTPHeaders)
        let path = "/cache?cc=no-store&k=\(LoadingFixtures.key())"
        _ = try await fetch(fetcher, path)
        clock.advance(1_000_000)
        #expect(try await fetch(fetcher, path).source == .disk)
        #expect(try server.requestCount(prefix: path) == 1)
    }

    @Test func expiresHeaderInThePastIsStale() async throws {
        let fetcher = fetcher()
        let path = "/cache?expires=Thu%2C%2001%20Dec%201994%2016%3A00%3A00%20GMT&k=\(LoadingFixtures.key())"
        _ = try await fetch(fetcher, path)
        #expect(try await fetch(fetcher, path).source == .network)
        #expect(try server.requestCount(prefix: path) == 2)
    }

    @Test func cacheOnlyMissFailsWithNotCachedAndHitsServeStaleEntries() async throws {
        let fetcher = fetcher()
        let path = "/etag?key=\(LoadingFixtures.key())&cc=max-age%3D1"
        await #expect(throws: DataLoadingError.notCached) { _ = try await fetch(fetcher, path, cacheOnly: true) }
        _ = try await fetch(fetcher, path)
        clock.advance(60)
        #expect(try await fetch(fetcher, path, cacheOnly: true).source == .disk)
        #expect(try server.requestCount(prefix: path) == 1)
    }

    @Test func ignoringCachedDataDownloadsAgainAndStores() async throws {
        let fetcher = fetcher()
        let path = "/cache?cc=max-age%3D600&k=\(LoadingFixtures.key())"
        _ = try await fetch(fetcher, path)
        #expect(try await fetch(fetcher, path, ignoreCached: true).source == .network)
        #expect(cache.storeCount == 2)
        #expect(try server.requestCount(prefix: path) == 2)
    }

    @Test func errorsAreNeverCachedEvenWithAnImageBody() async throws {
        let fetcher = fetcher()
        await #expect(throws: DataLoadingError.statusCode(404)) { _ = try await fetch(fetcher, "/status?code=404") }
        await #expect(throws: DataLoadingError.notAnImage(contentType: "text/html; charset=utf-8")) { _ = try await fetch(fetcher, "/html") }
        await #expect(throws: (any Error).self) { _ = try await fetch(fetcher, "/truncated?pad=1000") }
        #expect(cache.storeCount == 0)
    }

    @Test func staleEntryIsServedWhenRevalidationFailsTransiently() async throws {
        let fetcher = fetcher()
        let key = LoadingFixtures.key()
        let good = server.url("/cache?cc=max-age%3D1&k=\(key)")
        _ = try await fetcher.fetchData(for: DataFetchRequest(urlRequest: URLRequest(url: good), cacheKey: "entry")) { _ in }
        clock.advance(60)
        let failing = server.url("/flaky?key=\(key)&fail=100")
        let fetched = try await fetcher.fetchData(for: DataFetchRequest(urlRequest: URLRequest(url: failing), cacheKey: "entry")) { _ in }
        #expect(fetched.source == .disk)
    }

    @Test func heuristicFreshnessFromLastModified() async throws {
        // Last-Modified in 2015 → 10 % of ~10 years, capped at one day.
        let fetcher = fetcher()
        let path = "/lastmod?key=\(LoadingFixtures.key())"
        let first = try await fetch(fetcher, path)
        let expiresAt = try #require(first.metadata.expiresAt)
        #expect(abs(expiresAt.timeIntervalSince(clock.now) - 86_400) < 5)
        clock.advance(3600)
        #expect(try await fetch(fetcher, path).source == .disk)
    }

    @Test func storesToDiskFalseWritesNothing() async throws {
        let fetcher = fetcher()
        let url = server.url("/cache?cc=max-age%3D600&k=\(LoadingFixtures.key())")
        let fetched = try await fetcher.fetchData(
            for: DataFetchRequest(urlRequest: URLRequest(url: url), cacheKey: url.absoluteString, storesToDisk: false)) { _ in }
        #expect(fetched.source == .network)
        #expect(cache.storeCount == 0)
    }

    @Test func withoutACacheEveryFetchGoesToTheNetwork() async throws {
        let fetcher = ImageDataFetcher(loader: LoadingFixtures.loader(), cache: nil)
        let url = server.url("/cache?cc=max-age%3D600&k=\(LoadingFixtures.key())")
        let request = DataFetchRequest(urlRequest: URLRequest(url: url), cacheKey: url.absoluteString)
        #expect(try await fetcher.fetchData(for: request) { _ in }.source == .network)
        #expect(try await fetcher.fetchData(for: request) { _ in }.source == .network)
        await #expect(throws: DataLoadingError.notCached) {
            _ = try await fetcher.fetchData(for: DataFetchRequest(urlRequest: URLRequest(url: url), cacheKey: "x", isCacheOnly: true)) { _ in }
        }
    }

    @Test func redirectedResponsesAreCachedUnderTheURLAskedFor() async throws {
        let fetcher = fetcher()
        let path = "/redirect?n=2&final=%2Fcache%3Fcc%3Dmax-age%253D600&k=\(LoadingFixtures.key())"
        let url = server.url(path)
        let first = try await fetch(fetcher, path)
        #expect(first.response?.url?.path == "/cache")
        #expect(cache.contains(url.absoluteString))
        #expect(cache.count == 1)
        #expect(try await fetch(fetcher, path).source == .disk)
    }
}
