import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import PictorTestSupport
import Synchronization
import Testing

/// A settable clock for freshness tests.
final class TestClock: Sendable {
    private let current = Mutex(Date())
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Where a fetch was answered, as the pipeline reports it.
enum FetchSource: Equatable {
    case network, disk, revalidated
}

/// Pictor's HTTP caching in the pipeline's fetch stage, against the fault server: the disk
/// tier, freshness, revalidation and what is (never) stored.
@Suite(.enabled(if: LoadingFixtures.hasFaultServer), .timeLimit(.minutes(5)))
struct FetchStageHTTPCachingTests {
    let server = LoadingFixtures.faultServer!
    let cache = InMemoryDataCache()
    let clock = TestClock()

    func pipeline(
        _ policy: ImagePipeline.HTTPCachePolicy = .http, cache: (any DataCaching)? = nil, withoutCache: Bool = false,
        cacheKey: (@Sendable (ImageRequest) -> String)? = nil, hashesVary: Bool = true
    ) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration(
            dataLoader: LoadingFixtures.loader(), decoder: CountingImageDecoder(),
            dataCache: withoutCache ? nil : (cache ?? self.cache), httpCachePolicy: policy)
        if hashesVary { configuration.varyKeyHashing = TestKeyHashing() }
        let clock = self.clock
        configuration.now = { clock.now }
        if let cacheKey { configuration.cacheKey = cacheKey }
        return ImagePipeline(configuration: configuration)
    }

    func fetch(
        _ pipeline: ImagePipeline, _ path: String, options: ImageRequest.Options = [], headers: [String: String] = [:]
    ) async throws -> (source: FetchSource, data: Data, response: URLResponse?) {
        var request = URLRequest(url: server.url(path))
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let response = try await pipeline.data(for: ImageRequest(urlRequest: request, options: options))
        let source: FetchSource = response.cacheLayer == .network ? .network : response.isRevalidated ? .revalidated : .disk
        return (source, response.data, response.urlResponse)
    }

    func metadata(_ path: String) -> DataCacheMetadata? { cache.entry(for: server.url(path).absoluteString)?.metadata }

    @Test func freshEntryIsServedWithoutARequest() async throws {
        let pipeline = pipeline()
        let path = "/cache?cc=max-age%3D600&k=\(LoadingFixtures.key())"
        let first = try await fetch(pipeline, path)
        clock.advance(300)
        let second = try await fetch(pipeline, path)
        #expect(first.source == .network)
        #expect(second.source == .disk)
        #expect(second.data == first.data)
        #expect(metadata(path)?.format == .png)
        #expect(metadata(path)?.cacheControl == "max-age=600")
        #expect(try server.requestCount(prefix: path) == 1)
    }

    @Test func aResponseWithNeitherFreshnessNorValidatorsIsKeptForTheDefaultLifetime() async throws {
        let pipeline = pipeline()
        let path = "/image?k=\(LoadingFixtures.key())"
        let first = try await fetch(pipeline, path)
        clock.advance(6 * 86_400)
        let second = try await fetch(pipeline, path)
        #expect(first.source == .network)
        #expect(second.source == .disk, "a warmed cache serves what it stored")
        #expect(try server.requestCount(prefix: path) == 1)
        clock.advance(2 * 86_400)
        #expect(try await fetch(pipeline, path).source == .network, "past the default lifetime it is downloaded again")
    }

    @Test func withoutADefaultLifetimeSuchAResponseIsStaleAtOnce() async throws {
        var configuration = ImagePipeline.Configuration(dataLoader: LoadingFixtures.loader(), decoder: CountingImageDecoder(), dataCache: cache)
        configuration.defaultFreshnessLifetime = nil
        let pipeline = ImagePipeline(configuration: configuration)
        let path = "/image?k=\(LoadingFixtures.key())"
        _ = try await fetch(pipeline, path)
        #expect(try await fetch(pipeline, path).source == .network)
        #expect(try server.requestCount(prefix: path) == 2)
    }

    @Test func aValidatorAloneIsRevalidatedNotGivenTheDefaultLifetime() async throws {
        let pipeline = pipeline()
        let path = "/etag?key=\(LoadingFixtures.key())"
        _ = try await fetch(pipeline, path)
        #expect(try await fetch(pipeline, path).source == .revalidated)
    }

    @Test func staleEntryWithETagIsRevalidatedAnd304RefreshesFreshness() async throws {
        // Given an entry with an ETag that is fresh for 60 s
        let pipeline = pipeline()
        let path = "/etag?key=\(LoadingFixtures.key())&cc=max-age%3D60&tag=abc"
        let first = try await fetch(pipeline, path)
        // When it goes stale
        clock.advance(120)
        let second = try await fetch(pipeline, path)
        // Then a conditional request got a 304 and the bytes came from the cache, fresh again
        #expect(second.source == .revalidated)
        #expect(second.data == first.data)
        let requests = try server.requests(prefix: path)
        #expect(requests.count == 2)
        #expect(requests.last?.headers["if-none-match"] == "\"abc\"")
        #expect(cache.updateCount == 1)
        #expect(cache.storeCount == 1)
        let third = try await fetch(pipeline, path)
        #expect(third.source == .disk)
        #expect(try server.requestCount(prefix: path) == 2)
    }

    /// A 304 naming another `ETag` than the one asked about does not confirm the stored
    /// bytes: the fetch asks once more, without validators, and serves that download.
    @Test func a304ForAnotherETagIsFollowedByOneUnconditionalRequest() async throws {
        let pipeline = pipeline()
        let path = "/etag?key=\(LoadingFixtures.key())&cc=no-cache&tag=v1&tag304=v2"
        _ = try await fetch(pipeline, path)
        let second = try await fetch(pipeline, path)
        #expect(second.source == .network)
        let requests = try server.requests(prefix: path)
        #expect(requests.count == 3)
        #expect(requests[1].headers["if-none-match"] == "\"v1\"")
        #expect(requests[2].headers["if-none-match"] == nil)
        #expect(cache.storeCount == 2)
    }

    @Test func staleEntryWithLastModifiedIsRevalidated() async throws {
        let pipeline = pipeline()
        let path = "/lastmod?key=\(LoadingFixtures.key())&cc=no-cache"
        _ = try await fetch(pipeline, path)
        let second = try await fetch(pipeline, path)
        #expect(second.source == .revalidated)
        let requests = try server.requests(prefix: path)
        #expect(requests.count == 2)
        #expect(requests.last?.headers["if-modified-since"] == "Wed, 21 Oct 2015 07:28:00 GMT")
    }

    @Test func noCacheIsRevalidatedOnEveryUse() async throws {
        let pipeline = pipeline()
        let path = "/etag?key=\(LoadingFixtures.key())&cc=no-cache"
        _ = try await fetch(pipeline, path)
        #expect(try await fetch(pipeline, path).source == .revalidated)
        #expect(try await fetch(pipeline, path).source == .revalidated)
        #expect(try server.requestCount(prefix: path) == 3)
    }

    @Test func noStoreIsNeverWrittenToDisk() async throws {
        let pipeline = pipeline()
        let path = "/cache?cc=no-store&k=\(LoadingFixtures.key())"
        #expect(try await fetch(pipeline, path).source == .network)
        #expect(try await fetch(pipeline, path).source == .network)
        #expect(cache.storeCount == 0)
        #expect(try server.requestCount(prefix: path) == 2)
    }

    @Test func ignoreHTTPHeadersKeepsEverythingUntilEvicted() async throws {
        let pipeline = pipeline(.ignoreHTTPHeaders)
        let path = "/cache?cc=no-store&k=\(LoadingFixtures.key())"
        _ = try await fetch(pipeline, path)
        clock.advance(1_000_000)
        #expect(try await fetch(pipeline, path).source == .disk)
        #expect(try server.requestCount(prefix: path) == 1)
    }

    @Test func expiresHeaderInThePastIsStale() async throws {
        let pipeline = pipeline()
        let path = "/cache?expires=Thu%2C%2001%20Dec%201994%2016%3A00%3A00%20GMT&k=\(LoadingFixtures.key())"
        _ = try await fetch(pipeline, path)
        #expect(try await fetch(pipeline, path).source == .network)
        #expect(try server.requestCount(prefix: path) == 2)
    }

    @Test func cacheOnlyMissFailsWithNotCachedAndHitsServeStaleEntries() async throws {
        let pipeline = pipeline()
        let path = "/etag?key=\(LoadingFixtures.key())&cc=max-age%3D1"
        await #expect(throws: ImagePipeline.Error.self) { _ = try await fetch(pipeline, path, options: .returnCacheDataDontLoad) }
        do {
            _ = try await fetch(pipeline, path, options: .returnCacheDataDontLoad)
        } catch let error as ImagePipeline.Error {
            #expect(error.dataLoadingError == .notCached)
        }
        _ = try await fetch(pipeline, path)
        clock.advance(60)
        #expect(try await fetch(pipeline, path, options: .returnCacheDataDontLoad).source == .disk)
        #expect(try server.requestCount(prefix: path) == 1)
    }

    @Test func ignoringCachedDataDownloadsAgainAndStores() async throws {
        let pipeline = pipeline()
        let path = "/cache?cc=max-age%3D600&k=\(LoadingFixtures.key())"
        _ = try await fetch(pipeline, path)
        #expect(try await fetch(pipeline, path, options: .reloadIgnoringCachedData).source == .network)
        #expect(cache.storeCount == 2)
        #expect(try server.requestCount(prefix: path) == 2)
    }

    @Test func errorsAreNeverCachedEvenWithAnImageBody() async throws {
        let pipeline = pipeline()
        for (path, expected) in [("/status?code=404", "HTTP status 404"), ("/html", "text/html; charset=utf-8")] {
            do {
                _ = try await fetch(pipeline, path)
                Issue.record("\(path) loaded")
            } catch let error as ImagePipeline.Error {
                #expect(error.dataLoadingError.map { String(describing: $0).hasSuffix(expected) } == true, "\(error)")
            }
        }
        await #expect(throws: (any Error).self) { _ = try await fetch(pipeline, "/truncated?pad=1000") }
        #expect(cache.storeCount == 0)
    }

    @Test func staleEntryIsServedWhenRevalidationFailsTransiently() async throws {
        let pipeline = pipeline(cacheKey: { _ in "entry" })
        let key = LoadingFixtures.key()
        _ = try await fetch(pipeline, "/cache?cc=max-age%3D1&k=\(key)")
        clock.advance(60)
        #expect(try await fetch(pipeline, "/flaky?key=\(key)&fail=100").source == .disk)
    }

    @Test func heuristicFreshnessFromLastModified() async throws {
        // Last-Modified in 2015 → 10 % of ~10 years, capped at one day.
        let pipeline = pipeline()
        let path = "/lastmod?key=\(LoadingFixtures.key())"
        _ = try await fetch(pipeline, path)
        let expiresAt = try #require(metadata(path)?.expiresAt)
        #expect(abs(expiresAt.timeIntervalSince(clock.now) - 86_400) < 5)
        clock.advance(3600)
        #expect(try await fetch(pipeline, path).source == .disk)
    }

    @Test func disableDiskCacheWritesWritesNothing() async throws {
        let pipeline = pipeline()
        let path = "/cache?cc=max-age%3D600&k=\(LoadingFixtures.key())"
        #expect(try await fetch(pipeline, path, options: .disableDiskCacheWrites).source == .network)
        #expect(cache.storeCount == 0)
    }

    @Test func withoutACacheEveryFetchGoesToTheNetwork() async throws {
        let pipeline = pipeline(withoutCache: true)
        let path = "/cache?cc=max-age%3D600&k=\(LoadingFixtures.key())"
        #expect(try await fetch(pipeline, path).source == .network)
        #expect(try await fetch(pipeline, path).source == .network)
        await #expect(throws: ImagePipeline.Error.self) { _ = try await fetch(pipeline, path, options: .returnCacheDataDontLoad) }
    }

    @Test func redirectedResponsesAreCachedUnderTheURLAskedFor() async throws {
        // Permanent redirects: the target's freshness stands for the whole chain.
        let pipeline = pipeline()
        let path = "/redirect?n=2&code=301&final=%2Fcache%3Fcc%3Dmax-age%253D600&k=\(LoadingFixtures.key())"
        let first = try await fetch(pipeline, path)
        #expect(first.response?.url?.path == "/cache")
        #expect(cache.contains(server.url(path).absoluteString))
        #expect(cache.contains(server.url("/cache?cc=max-age%3D600").absoluteString), "and the target under its own")
        #expect(cache.count == 2)
        #expect(try await fetch(pipeline, path).source == .disk)
    }

    // MARK: - Servers whose clock is off (RFC 9111 §4.2.1: lifetime = Expires − Date)

    @Test(arguments: [-7200, 7200])
    func expiresIsMeasuredFromTheServersDate(offset: Int) async throws {
        // A server whose clock is two hours off says "fresh for 10 minutes" as Expires = Date + 600.
        let pipeline = pipeline()
        let path = "/cache?dateoff=\(offset)&expoff=600&k=\(LoadingFixtures.key())"
        _ = try await fetch(pipeline, path)
        // Fresh for ten minutes on our clock, whichever way the server's clock is off.
        let expiresAt = try #require(metadata(path)?.expiresAt)
        #expect(abs(expiresAt.timeIntervalSince(clock.now) - 600) < 5)
        clock.advance(300)
        #expect(try await fetch(pipeline, path).source == .disk)
        clock.advance(400)
        #expect(try await fetch(pipeline, path).source == .network)
        #expect(try server.requestCount(prefix: path) == 2)
    }

    @Test func maxAgeIsNotShortenedByASkewedDate() async throws {
        let pipeline = pipeline()
        let path = "/cache?dateoff=-86400&cc=max-age%3D600&k=\(LoadingFixtures.key())"
        _ = try await fetch(pipeline, path)
        clock.advance(300)
        #expect(try await fetch(pipeline, path).source == .disk)
    }

    // MARK: - Vary

    @Test func varyStarIsNeverStored() async throws {
        let pipeline = pipeline()
        let path = "/etag?key=\(LoadingFixtures.key())&cc=max-age%3D600&vary=*"
        #expect(try await fetch(pipeline, path).source == .network)
        #expect(try await fetch(pipeline, path).source == .network, "Vary: * matches no request (RFC 9111 §4.1)")
        #expect(metadata(path) == nil)
        #expect(try server.requestCount(prefix: path) == 2)
    }

    @Test func varyOnARequestHeaderAnswersOnlyTheSameValues() async throws {
        let pipeline = pipeline()
        let path = "/user?cc=max-age%3D600&vary=Cookie%2C%20Accept&k=\(LoadingFixtures.key())"
        let ann = ["Cookie": "session=ann", "Accept": "image/*"]
        let bob = ["Cookie": "session=bob", "Accept": "image/*"]
        let first = try await fetch(pipeline, path, headers: ann)
        #expect(first.source == .network)
        let again = try await fetch(pipeline, path, headers: ann)
        #expect(again.source == .disk, "the same values: fresh, as any entry")
        #expect(again.data == first.data)
        let other = try await fetch(pipeline, path, headers: bob)
        #expect(other.source == .network, "other values: a miss")
        #expect(other.data.suffix(11) == Data("session=bob".utf8))
        #expect(try await fetch(pipeline, path, headers: [:]).source == .network, "absent values: a miss")
        #expect(try server.requestCount(prefix: path) == 3)
        #expect(metadata(path)?.varyKey != nil)
        #expect(metadata(path)?.varyKey?.contains("bob") == false)
    }

    @Test func withoutHashingAVaryResponseIsNotStored() async throws {
        let pipeline = pipeline(hashesVary: false)
        let path = "/cache?cc=max-age%3D600&vary=Accept&k=\(LoadingFixtures.key())"
        _ = try await fetch(pipeline, path)
        #expect(try await fetch(pipeline, path).source == .network)
        #expect(metadata(path) == nil)
    }

    @Test func varyOnAcceptEncodingAloneIsServedFresh() async throws {
        let pipeline = pipeline()
        let path = "/cache?cc=max-age%3D600&vary=Accept-Encoding&k=\(LoadingFixtures.key())"
        _ = try await fetch(pipeline, path)
        #expect(try await fetch(pipeline, path).source == .disk)
    }

    // MARK: - Redirects and validators

    // A redirect target is revalidated with its own validators only: RedirectTargetCachingTests.

    @Test func aRedirectThatNowLeadsElsewhereReplacesTheCachedImage() async throws {
        let pipeline = pipeline(cacheKey: { _ in "one entry" })
        let key = LoadingFixtures.key()
        func via(_ final: String) -> String {
            "/redirect?n=1&k=\(key)&final=\(final.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        }
        let old = try await fetch(pipeline, via("/etag?key=\(key)&cc=max-age%3D60&tag=a"))
        clock.advance(120)
        let new = try await fetch(pipeline, via("/etag?key=\(key)b&cc=max-age%3D60&tag=b&pad=10"))
        #expect(new.source == .network)
        #expect(new.data != old.data)
        #expect(cache.entry(for: "one entry")?.data == new.data)
        #expect(cache.entry(for: "one entry")?.metadata.etag == nil, "validators of a redirect target are not kept")
    }
}

/// What is stored under a URL that redirects: the entry stands for the redirects too.
@Suite(.enabled(if: LoadingFixtures.hasFaultServer), .timeLimit(.minutes(5)))
struct FetchStageRedirectCachingTests {
    let base = FetchStageHTTPCachingTests()

    func via(_ target: String, cc: String? = nil, code: Int = 302, key: String) -> String {
        "/redirect?n=1&code=\(code)&k=\(key)" + (cc.map { "&cc=\($0)" } ?? "")
            + "&final=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
    }

    @Test func aNoStoreRedirectIsAskedAgainEveryTimeEvenToAnImmutableImage() async throws {
        // The avatar pattern: /avatar → 302 no-store → /avatar-v1.jpg (max-age one year).
        let pipeline = base.pipeline()
        let key = LoadingFixtures.key()
        let target = "/cache?cc=max-age%3D31536000%2C%20immutable&k=\(key)"
        let path = via(target, cc: "no-store", key: key)
        #expect(try await base.fetch(pipeline, path).source == .network)
        // The redirect is asked again; the image it leads to is its own resource, kept under
        // its own URL on its own terms.
        #expect(try await base.fetch(pipeline, path).source == .disk)
        #expect(base.metadata(path) == nil, "nothing is stored under the no-store redirect's URL")
        #expect(base.cache.storeCount == 1)
        #expect(try base.server.requestCount(prefix: "/redirect?n=1&code=302&k=\(key)") == 2)
        #expect(try base.server.requestCount(prefix: target) == 1)
    }

    @Test func aTemporaryRedirectWithoutFreshnessIsStaleAtOnce() async throws {
        let pipeline = base.pipeline()
        let key = LoadingFixtures.key()
        let target = "/etag?key=\(key)&cc=max-age%3D31536000&tag=t"
        let path = via(target, key: key)
        _ = try await base.fetch(pipeline, path)
        // The redirect is asked again; its fresh target answers from its own entry.
        #expect(try await base.fetch(pipeline, path).source == .disk)
        #expect(try base.server.requestCount(prefix: "/redirect?n=1&code=302&k=\(key)") == 2)
        #expect(try base.server.requestCount(prefix: target) == 1)
        // Stored under the URL asked for without the target's validators.
        #expect(base.metadata(path)?.etag == nil)
        #expect(base.metadata(target)?.etag == "\"t\"")
    }

    @Test func aCacheableRedirectLimitsTheTargetsFreshness() async throws {
        let pipeline = base.pipeline()
        let key = LoadingFixtures.key()
        let target = "/cache?cc=max-age%3D31536000&k=\(key)"
        let path = via(target, cc: "max-age%3D60", key: key)
        _ = try await base.fetch(pipeline, path)
        base.clock.advance(30)
        #expect(try await base.fetch(pipeline, path).source == .disk)
        #expect(try base.server.requestCount(prefix: "/redirect?n=1&code=302&k=\(key)") == 1, "remembered for its max-age")
        base.clock.advance(60)
        #expect(try await base.fetch(pipeline, path).source == .disk, "asked again; its target is still fresh")
        #expect(try base.server.requestCount(prefix: "/redirect?n=1&code=302&k=\(key)") == 2)
        #expect(try base.server.requestCount(prefix: target) == 1)
    }

    @Test func aPermanentRedirectKeepsTheTargetsFreshness() async throws {
        let pipeline = base.pipeline()
        let key = LoadingFixtures.key()
        let path = via("/cache?cc=max-age%3D600&k=\(key)", code: 301, key: key)
        _ = try await base.fetch(pipeline, path)
        base.clock.advance(300)
        #expect(try await base.fetch(pipeline, path).source == .disk)
    }
}
