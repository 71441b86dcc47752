import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorCore
@testable import PictorRedis
import PictorTestSupport
import Synchronization
import Testing

/// The fleet tier is a shared cache (RFC 9111 §3, §3.5, §4.2.1): two pipelines, standing for
/// two users' processes, each with its own disk cache, on one real redis-server, in front of one
/// origin that serves each signed-in user their own image.
@Suite(.enabled(if: RedisServer.isAvailable), .serialized, .timeLimit(.minutes(5)))
struct SharedRulesOverRedisTests {
    /// An origin whose image depends on the request's credentials: the image's marker byte is
    /// the last character of the `Authorization` or `Cookie` value (0 for neither), and every
    /// answer carries `headers`. Counts requests per URL.
    final class PerUserOrigin: DataLoading {
        private let state = Mutex<(headers: [String: String], counts: [String: Int])>(([:], [:]))

        init(_ headers: [String: String]) { state.withLock { $0.headers = headers } }

        func requests(for url: URL) -> Int { state.withLock { $0.counts[url.absoluteString] ?? 0 } }

        static func marker(for request: URLRequest) -> UInt8 {
            let who = request.value(forHTTPHeaderField: "Authorization") ?? request.value(forHTTPHeaderField: "Cookie") ?? ""
            return who.utf8.last ?? 0
        }

        func loadData(for request: URLRequest, options: DataLoadOptions) async throws -> (Data, URLResponse) {
            let url = request.url!
            let headers = state.withLock { state in
                state.counts[url.absoluteString, default: 0] += 1
                return state.headers
            }
            let body = TestImageCodec.encode(width: 16, height: 16, marker: Self.marker(for: request))
            return (body, HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers)!)
        }
    }

    /// A new redis-server and an origin answering with `headers`.
    static func start(_ headers: [String: String]) async throws -> (RedisServer, PerUserOrigin) {
        (try await offPool { try RedisServer() }, PerUserOrigin(headers))
    }

    /// One user's process: its own disk cache, the fleet's Redis.
    static func member(_ redis: RedisServer, origin: PerUserOrigin) throws -> ImagePipeline {
        var configuration = ImagePipeline.Configuration(
            dataLoader: origin, decoder: CountingImageDecoder(), dataCache: InMemoryDataCache())
        configuration.sharedCache = try RedisSharedCache(url: redis.url + "?connect_timeout=5s&command_timeout=10s")
        configuration.sharedCachePolicy.leaseDuration = .seconds(120)
        configuration.sharedCachePolicy.maximumWait = .seconds(120)
        configuration.varyKeyHashing = TestKeyHashing()
        return ImagePipeline(configuration: configuration)
    }

    static func load(_ pipeline: ImagePipeline, _ url: URL, _ headers: [String: String] = [:]) async throws -> (marker: UInt8, layer: CacheLayer) {
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let response = try await pipeline.data(for: ImageRequest(urlRequest: request))
        return (try TestImageCodec.header(response.data).marker, response.cacheLayer)
    }

    static func url(_ tag: String) -> URL { URL(string: "https://origin.example.test/\(tag)/\(UUID().uuidString).img")! }

    static let tokenA = ["Authorization": "Bearer token-A"]
    static let tokenB = ["Authorization": "Bearer token-B"]

    @Test func aPrivateResponseIsNotServedToAnotherProcess() async throws {
        let (redis, origin) = try await Self.start(["Cache-Control": "private, max-age=3600"])
        defer { redis.stop() }
        let first = try Self.member(redis, origin: origin), second = try Self.member(redis, origin: origin)
        let url = Self.url("private")
        #expect(try await Self.load(first, url, ["Cookie": "s=1"]).layer == .network)
        let other = try await Self.load(second, url, ["Cookie": "s=2"])
        #expect(other.layer == .network)
        #expect(other.marker == UInt8(ascii: "2"), "the second user's own image")
        #expect(origin.requests(for: url) == 2)
        #expect(first.statistics.sharedCache.notSharedPrivate == 1)
        #expect(first.statistics.sharedCache.stores == 0)
        // Each process's own disk keeps it (one user's cache).
        #expect(try await Self.load(first, url, ["Cookie": "s=1"]).layer == .disk)
    }

    @Test func anAuthorizedResponseIsNotServedToAnotherTokenNorToNoToken() async throws {
        let (redis, origin) = try await Self.start(["Cache-Control": "max-age=3600"])
        defer { redis.stop() }
        let first = try Self.member(redis, origin: origin), second = try Self.member(redis, origin: origin)
        let third = try Self.member(redis, origin: origin)
        let url = Self.url("authorized")
        #expect(try await Self.load(first, url, Self.tokenA).marker == UInt8(ascii: "A"))
        let b = try await Self.load(second, url, Self.tokenB)
        #expect(b.layer == .network)
        #expect(b.marker == UInt8(ascii: "B"), "token-B is never served token-A's image")
        let anonymous = try await Self.load(third, url)
        #expect(anonymous.layer == .network)
        #expect(anonymous.marker == 0)
        #expect(origin.requests(for: url) == 3)
        #expect(first.statistics.sharedCache.notSharedAuthorized == 1)
        #expect(second.statistics.sharedCache.notSharedAuthorized == 1)
        #expect(second.statistics.sharedCache.leasesTaken == 0, "a request with credentials makes the fleet wait for nothing")
    }

    @Test(arguments: ["public, max-age=3600", "max-age=3600, s-maxage=3600", "max-age=3600, must-revalidate"])
    func anAuthorizedResponseThatAllowsSharingIsShared(cacheControl: String) async throws {
        let (redis, origin) = try await Self.start(["Cache-Control": cacheControl])
        defer { redis.stop() }
        let first = try Self.member(redis, origin: origin), second = try Self.member(redis, origin: origin)
        let url = Self.url("public")
        _ = try await Self.load(first, url, Self.tokenA)
        let b = try await Self.load(second, url, Self.tokenB)
        #expect(b.layer == .shared, "\(cacheControl)")
        #expect(origin.requests(for: url) == 1, "\(cacheControl)")
    }

    @Test func sharedMaxAgeZeroIsStaleInTheFleet() async throws {
        let (redis, origin) = try await Self.start(["Cache-Control": "max-age=3600, s-maxage=0"])
        defer { redis.stop() }
        let first = try Self.member(redis, origin: origin), second = try Self.member(redis, origin: origin)
        let url = Self.url("smaxage")
        _ = try await Self.load(first, url)
        #expect(try await Self.load(second, url).layer == .network, "stale in the shared tier: asked again")
        #expect(origin.requests(for: url) == 2)
        #expect(try await Self.load(first, url).layer == .disk, "fresh for one user's disk (max-age)")
    }

    @Test(arguments: ["max-age='3600'", "max-age =100", "max-age= 100", "max-age=a100", "max-age=100a"])
    func aMalformedMaxAgeIsStaleInEveryTier(cacheControl: String) async throws {
        let (redis, origin) = try await Self.start(["Cache-Control": cacheControl])
        defer { redis.stop() }
        let first = try Self.member(redis, origin: origin), second = try Self.member(redis, origin: origin)
        let url = Self.url("malformed")
        _ = try await Self.load(first, url)
        #expect(try await Self.load(second, url).layer == .network, "\(cacheControl): stale in the fleet")
        #expect(try await Self.load(first, url).layer == .network, "\(cacheControl): stale on disk")
        #expect(origin.requests(for: url) == 3)
    }

    @Test(arguments: ["Authorization", "Cookie"])
    func varyWithOtherValuesIsAMissInTheFleet(field: String) async throws {
        let (redis, origin) = try await Self.start(["Cache-Control": "public, max-age=3600", "Vary": field])
        defer { redis.stop() }
        let first = try Self.member(redis, origin: origin), second = try Self.member(redis, origin: origin)
        let third = try Self.member(redis, origin: origin)
        let url = Self.url("vary")
        _ = try await Self.load(first, url, [field: "value-A"])
        let other = try await Self.load(second, url, [field: "value-B"])
        #expect(other.layer == .network)
        #expect(other.marker == UInt8(ascii: "B"))
        let same = try await Self.load(third, url, [field: "value-B"])
        #expect(same.layer == .shared, "the same values are served from the fleet")
        #expect(same.marker == UInt8(ascii: "B"))
        #expect(origin.requests(for: url) == 2)
    }
}
