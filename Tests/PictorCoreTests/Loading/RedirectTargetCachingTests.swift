import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import PictorTestSupport
import Testing

/// A URL that redirects (avatars, short links, signed URLs) to an image with its own freshness:
/// the hop may be asked again (a 302 without freshness is not stored), but the target's bytes
/// are kept under the target's own key, so a warm load makes one request per hop and downloads
/// nothing while the target is fresh, and revalidates a stale target with its own validators.
@Suite(.enabled(if: LoadingFixtures.hasFaultServer), .timeLimit(.minutes(5)))
struct RedirectTargetCachingTests {
    let base = FetchStageHTTPCachingTests()
    var server: FaultServer { base.server }

    /// `n` redirects (`code`) with the hops' `Cache-Control` `cc`, then `target`.
    func via(_ target: String, n: Int = 1, code: Int = 302, cc: String? = nil, key: String) -> String {
        "/redirect?n=\(n)&code=\(code)&k=\(key)" + (cc.map { "&cc=\($0)" } ?? "")
            + "&final=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
    }

    /// Requests to the redirect hops of the test keyed `key`.
    func hops(_ key: String) throws -> [RecordedRequest] {
        try server.requests(prefix: "/redirect?").filter { $0.target.contains(key) }
    }

    @Test func aFreshTargetIsServedFromItsOwnEntryAfterOneRequestToTheHop() async throws {
        let pipeline = base.pipeline()
        let key = LoadingFixtures.key()
        let target = "/cache?cc=max-age%3D3600&pad=300000&k=\(key)"
        let path = via(target, key: key)
        let cold = try await base.fetch(pipeline, path)
        #expect(cold.source == .network)
        base.clock.advance(60)
        let warm = try await base.fetch(pipeline, path)
        #expect(warm.source == .disk, "the target is fresh: nothing downloaded")
        #expect(warm.data == cold.data)
        #expect(try hops(key).count == 2, "the 302 without freshness is asked again")
        #expect(try server.requestCount(prefix: target) == 1, "the target was downloaded once")
        // The target's own entry keeps its own freshness and validators; the URL asked for stays
        // stale, standing for the 302.
        #expect(base.metadata(target)?.cacheControl == "max-age=3600")
        #expect(base.metadata(path).map { !base.localRules.isFresh($0, now: base.clock.now) } == true)
    }

    @Test func aStaleTargetIsRevalidatedWithItsOwnValidators() async throws {
        let pipeline = base.pipeline()
        let key = LoadingFixtures.key()
        let target = "/etag?key=\(key)&cc=max-age%3D60&tag=t1"
        let path = via(target, key: key)
        #expect(try await base.fetch(pipeline, path).source == .network)
        base.clock.advance(120)
        let second = try await base.fetch(pipeline, path)
        #expect(second.source == .revalidated, "a 304 from the target, no download")
        let toTarget = try server.requests(prefix: target)
        #expect(toTarget.count == 2)
        #expect(toTarget.last?.headers["if-none-match"] == "\"t1\"", "the target's own validators")
        #expect(try hops(key).allSatisfy { $0.headers["if-none-match"] == nil }, "never the hop")
        // The 304 refreshed the target's entry: fresh again, the next load downloads nothing either.
        base.clock.advance(30)
        #expect(try await base.fetch(pipeline, path).source == .disk)
        #expect(try server.requestCount(prefix: target) == 2)
        #expect(try hops(key).count == 3)
    }

    @Test func aChainOfTwoRedirectsCostsOneRequestPerHop() async throws {
        let pipeline = base.pipeline()
        let key = LoadingFixtures.key()
        let target = "/cache?cc=max-age%3D3600&k=\(key)"
        let path = via(target, n: 2, key: key)
        #expect(try await base.fetch(pipeline, path).source == .network)
        #expect(try hops(key).count == 2)
        #expect(try await base.fetch(pipeline, path).source == .disk)
        #expect(try hops(key).count == 4, "each of the two hops once more")
        #expect(try server.requestCount(prefix: target) == 1)
    }

    @Test func aPermanentRedirectToAFreshTargetCostsNoRequestWarm() async throws {
        let pipeline = base.pipeline()
        let key = LoadingFixtures.key()
        let target = "/cache?cc=max-age%3D3600&k=\(key)"
        let path = via(target, code: 301, key: key)
        _ = try await base.fetch(pipeline, path)
        base.clock.advance(60)
        #expect(try await base.fetch(pipeline, path).source == .disk)
        #expect(try hops(key).count == 1, "a 301 is remembered (heuristically cacheable)")
        #expect(try server.requestCount(prefix: target) == 1)
    }

    @Test func aRedirectToARefusedTargetIsStillRefusedWhenTheTargetIsCached() async throws {
        let key = LoadingFixtures.key()
        let target = "/cache?cc=max-age%3D3600&k=\(key)"
        let path = via(target, key: key)
        // Cached through a pipeline that allows the target…
        _ = try await base.fetch(base.pipeline(), path)
        // …a pipeline over the same cache whose loader refuses it is refused, warm as cold.
        var configuration = ImagePipeline.Configuration(
            dataLoader: LoadingFixtures.loader { $0.redirectFilter = { $0.path != "/cache" } },
            decoder: CountingImageDecoder(), dataCache: base.cache)
        let clock = base.clock
        configuration.now = { clock.now }
        let refusing = ImagePipeline(configuration: configuration)
        do {
            _ = try await base.fetch(refusing, path)
            Issue.record("a refused redirect was served from the cache")
        } catch let error as ImagePipeline.Error {
            #expect(error.dataLoadingError == .redirectRefused)
        }
        #expect(try server.requestCount(prefix: target) == 1)
    }

    @Test func aTargetThatChangedIsDownloaded() async throws {
        let pipeline = base.pipeline()
        let key = LoadingFixtures.key()
        let target = "/etag?key=\(key)&cc=max-age%3D60&changes=1"
        let path = via(target, key: key)
        #expect(try await base.fetch(pipeline, path).source == .network)
        #expect(base.metadata(target)?.etag == "\"v1\"")
        base.clock.advance(120)
        #expect(try await base.fetch(pipeline, path).source == .network, "the target answered 200 with a new ETag")
        #expect(base.metadata(target)?.etag == "\"v2\"", "its entry replaced")
        #expect(try server.requests(prefix: target).last?.headers["if-none-match"] == "\"v1\"")
    }

    @Test func aReloadNeverAnswersFromTheTargetsEntry() async throws {
        let pipeline = base.pipeline()
        let key = LoadingFixtures.key()
        let target = "/cache?cc=max-age%3D3600&k=\(key)"
        let path = via(target, key: key)
        _ = try await base.fetch(pipeline, path)
        #expect(try await base.fetch(pipeline, path, options: .reloadIgnoringCachedData).source == .network)
        #expect(try server.requestCount(prefix: target) == 2)
    }
}

/// The shared fleet tier follows the same rule: a target downloaded by one process is kept
/// in the tier under its own key, and another process whose chain leads there is answered by it.
@Suite(.enabled(if: LoadingFixtures.hasFaultServer), .timeLimit(.minutes(5)))
struct RedirectTargetSharedTierTests {
    let server = LoadingFixtures.faultServer!
    let fleet = InMemorySharedCache()

    func member() -> (pipeline: ImagePipeline, disk: InMemoryDataCache) {
        let disk = InMemoryDataCache()
        var configuration = ImagePipeline.Configuration(
            dataLoader: LoadingFixtures.loader(), decoder: CountingImageDecoder(), dataCache: disk)
        configuration.sharedCache = fleet
        return (ImagePipeline(configuration: configuration), disk)
    }

    @Test func anotherProcessIsAnsweredByTheTargetInTheTierAfterOneRequestToTheHop() async throws {
        let key = LoadingFixtures.key()
        let target = "/cache?cc=max-age%3D3600&k=\(key)"
        let url = server.url("/redirect?n=1&k=\(key)&final=\(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
        let a = member(), b = member()
        #expect(try await a.pipeline.data(for: ImageRequest(url: url)).cacheLayer == .network)
        #expect(fleet.storedEntry(for: server.url(target).absoluteString) != nil, "the target is shared under its own key")
        let second = try await b.pipeline.data(for: ImageRequest(url: url))
        #expect(second.cacheLayer == .shared)
        #expect(try server.requestCount(prefix: target) == 1, "downloaded once for the fleet")
        #expect(try server.requests(prefix: "/redirect?").filter { $0.target.contains(key) }.count == 2)
        #expect(b.disk.contains(server.url(target).absoluteString), "kept on the local disk too")
    }
}

extension FetchStageHTTPCachingTests {
    /// The rules of the pipelines ``pipeline(_:cache:withoutCache:cacheKey:hashesVary:)`` makes.
    var localRules: CacheRules { CacheRules(scope: .private, policy: .http) }
}
