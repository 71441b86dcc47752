import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import PictorTestSupport
import Testing

/// Stale answers against a real loopback origin (the fault server), which counts requests:
/// `stale-while-revalidate` answered from the disk with one conditional request behind it, and
/// a cache-only (offline) request that never reaches the origin.
@Suite(.enabled(if: LoadingFixtures.hasFaultServer), .timeLimit(.minutes(5)))
struct FetchStageStaleTests {
    let server = LoadingFixtures.faultServer!
    let cache = InMemoryDataCache()
    let clock = TestClock()

    func pipeline(_ policy: ImagePipeline.HTTPCachePolicy = .http) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration(
            dataLoader: LoadingFixtures.loader(), decoder: CountingImageDecoder(), dataCache: cache, httpCachePolicy: policy)
        let clock = clock
        configuration.now = { clock.now }
        return ImagePipeline(configuration: configuration)
    }

    @Test func aStaleEntryWithinStaleWhileRevalidateAnswersAtOnceAndIsRevalidatedInTheBackground() async throws {
        let pipeline = pipeline()
        let key = LoadingFixtures.key()
        let path = "/etag?key=\(key)&cc=max-age%3D1%2C%20stale-while-revalidate%3D60"
        let url = server.url(path)
        let first = try await pipeline.data(for: url)
        #expect(first.cacheLayer == .network)
        clock.advance(2)
        let stale = try await pipeline.data(for: url)
        #expect(stale.cacheLayer == .disk && !stale.isRevalidated)
        await pipeline.waitForBackgroundRevalidations()
        let requests = try server.requests(prefix: "/etag?key=\(key)")
        #expect(requests.count == 2)
        #expect(requests.last?.headers["if-none-match"] == "\"v1\"", "revalidated with the entry's validators")
        let expiry = try #require(cache.entry(for: url.absoluteString)?.metadata.expiresAt)
        #expect(expiry > clock.now, "the 304 made the entry fresh again")
        // Fresh again: answered with no request.
        #expect(try await pipeline.data(for: url).cacheLayer == .disk)
        #expect(try server.requestCount(prefix: "/etag?key=\(key)") == 2)
    }

    /// Cache-only: any entry, fresh or stale, answers without a request; a URL with none fails
    /// as not cached, and the origin sees nothing.
    @Test func aCacheOnlyRequestServesAStaleEntryAndNeverAsksTheOrigin() async throws {
        let pipeline = pipeline()
        let key = LoadingFixtures.key()
        let cached = server.url("/cache?cc=max-age%3D0&k=\(key)")
        _ = try await pipeline.data(for: cached)
        let before = try server.requestCount(prefix: "/cache?cc=max-age%3D0&k=\(key)")
        let offline = try await pipeline.data(for: ImageRequest(url: cached, options: .returnCacheDataDontLoad))
        #expect(offline.cacheLayer == .disk)
        #expect(try server.requestCount(prefix: "/cache?cc=max-age%3D0&k=\(key)") == before)
        let missing = server.url("/image?k=\(key)")
        await #expect(throws: ImagePipeline.Error.self) {
            try await pipeline.data(for: ImageRequest(url: missing, options: .returnCacheDataDontLoad))
        }
        do {
            _ = try await pipeline.data(for: ImageRequest(url: missing, options: .returnCacheDataDontLoad))
        } catch {
            #expect((error.underlying as? DataLoadingError)?.kind == .notCached)
        }
        #expect(try server.requestCount(prefix: "/image?k=\(key)") == 0)
    }
}
