import Foundation
import PictorCore
import PictorCrypto
@testable import PictorRedis
import PictorTestSupport
import Synchronization
import Testing

/// Pipelines sharing a real Redis as processes of a fleet would: each with its own loader and
/// disk cache, one Redis (or one Cluster) between them.
@Suite(.enabled(if: RedisServer.isAvailable), .serialized, .timeLimit(.minutes(5)))
struct SharedTierOverRedisTests {
    /// Lines logged by the pipelines.
    final class LogLines: Sendable {
        let lines = Mutex<[String]>([])
        var logger: PictorLog { PictorLog(level: .info) { level, message in self.lines.withLock { $0.append("\(level): \(message)") } } }
        var warnings: [String] { lines.withLock { $0.filter { $0.hasPrefix("warning") } } }
    }

    struct Member {
        let network = MockDataLoader()
        let disk = InMemoryDataCache()
        let pipeline: ImagePipeline

        init(_ shared: RedisSharedCache, urls: [URL], log: PictorLog = .disabled, policy: (inout SharedCachePolicy) -> Void = { _ in }) {
            for (i, url) in urls.enumerated() {
                network.stub(url, data: TestImageCodec.encode(width: 32 + i % 7, height: 24, marker: UInt8(truncatingIfNeeded: i)))
            }
            var configuration = ImagePipeline.Configuration(
                dataLoader: network, decoder: CountingImageDecoder(), dataCache: disk, logger: log)
            configuration.sharedCache = shared
            // Leases and waits that a loaded machine cannot outlast: these tests count downloads,
            // and a holder slower than the defaults would rightly let the others download too.
            configuration.sharedCachePolicy.leaseDuration = .seconds(120)
            configuration.sharedCachePolicy.maximumWait = .seconds(120)
            policy(&configuration.sharedCachePolicy)
            pipeline = ImagePipeline(configuration: configuration)
        }

        func loadAll(_ urls: [URL]) async throws -> [ImageResponse] {
            try await withThrowingTaskGroup(of: (Int, ImageResponse).self) { group in
                for (i, url) in urls.enumerated() {
                    group.addTask { (i, try await pipeline.image(for: ImageRequest(url: url))) }
                }
                var responses = [ImageResponse?](repeating: nil, count: urls.count)
                for try await (i, response) in group { responses[i] = response }
                return responses.map { $0! }
            }
        }
    }

    /// A tier with timeouts a loaded machine cannot miss: these tests are about what is shared,
    /// not about timeouts (only the hang test keeps the defaults).
    static func tier(_ url: String, key: EncryptionKey? = nil) throws -> RedisSharedCache {
        try RedisSharedCache(url: patient(url), masterKey: key)
    }

    static func urls(_ count: Int, _ tag: String = "fleet") -> [URL] {
        (0..<count).map { URL(string: "https://images.example.test/\(tag)/\($0).img")! }
    }

    /// Each response has its own URL's image (`urls` start at index `offset` of the full list).
    static func check(_ responses: [ImageResponse], _ urls: [URL], offset: Int = 0) {
        for (i, response) in responses.enumerated() {
            #expect(response.image.width == 32 + (i + offset) % 7, "\(urls[i]) got another URL's image")
        }
    }

    @Test(arguments: [false, true]) func fourMembersDownloadEachURLOnceAndAFifthNeedsNoOrigin(encrypted: Bool) async throws {
        let server = try await offPool { try RedisServer() }
        defer { server.stop() }
        let key = encrypted ? try EncryptionKey.generate() : nil
        let urls = Self.urls(40)
        let members = try (0..<4).map { _ in Member(try Self.tier(server.url, key: key), urls: urls) }

        let all = try await withThrowingTaskGroup(of: [ImageResponse].self) { group in
            for member in members { group.addTask { try await member.loadAll(urls) } }
            var all: [[ImageResponse]] = []
            for try await responses in group { all.append(responses) }
            return all
        }
        for responses in all { Self.check(responses, urls) }
        for url in urls {
            #expect(members.map { $0.network.loadCount(for: url) }.reduce(0, +) == 1, "\(url) was downloaded more than once")
        }

        let fifth = Member(try Self.tier(server.url, key: key), urls: [])  // every origin request fails
        let responses = try await fifth.loadAll(urls)
        Self.check(responses, urls)
        #expect(responses.allSatisfy { $0.cacheLayer == .shared })
        #expect(fifth.network.loadCount == 0)
    }

    @Test func aWrongKeyMissesAndLoadsCorrectImagesFromTheOrigin() async throws {
        let server = try await offPool { try RedisServer() }
        defer { server.stop() }
        let urls = Self.urls(10, "keys")
        let writer = Member(try Self.tier(server.url, key: try EncryptionKey.generate()), urls: urls)
        _ = try await writer.loadAll(urls)
        let reader = Member(try Self.tier(server.url, key: try EncryptionKey.generate()), urls: urls)
        let responses = try await reader.loadAll(urls)
        Self.check(responses, urls)
        #expect(responses.allSatisfy { $0.cacheLayer == .network })
        #expect(reader.pipeline.statistics.sharedCache.errors == 0, "a wrong key is a miss, not an error")
    }

    @Test func redisStoppedMidRunFailsNoLoadAndIsReportedOnce() async throws {
        let server = try await offPool { try RedisServer() }
        defer { server.stop() }
        let log = LogLines()
        let urls = Self.urls(30, "outage")
        // Patient timeouts: the outage is a stopped server (refused at once), not a slow one.
        let member = Member(try Self.tier(server.url), urls: urls, log: log.logger)
        Self.check(try await member.loadAll(Array(urls[..<10])), Array(urls[..<10]))
        server.stop()
        Self.check(try await member.loadAll(Array(urls[10...])), Array(urls[10...]), offset: 10)
        let counters = member.pipeline.statistics.sharedCache
        #expect(counters.errors >= 1)
        #expect(counters.skips >= 1, "skipped while cooling down")
        #expect(log.warnings.count == 1, "one line, not one per image: \(log.warnings)")
    }

    @Test func aHungRedisIsWaitedForOnlyUpToItsTimeouts() async throws {
        let server = try await offPool { try RedisServer() }
        defer { server.stop() }
        let urls = Self.urls(12, "hung")
        // The default timeouts are what is tested. Should a slow machine time out the first
        // loads too, they still come from the origin, and the errors are counted all the same.
        let member = Member(try RedisSharedCache(url: server.url), urls: urls)
        _ = try await member.loadAll(Array(urls[..<2]))
        server.pause()
        defer { server.resume() }
        let responses = try await member.loadAll(Array(urls[2...]))
        Self.check(responses, Array(urls[2...]), offset: 2)
        #expect(responses.allSatisfy { $0.cacheLayer == .network })
        #expect(member.pipeline.statistics.sharedCache.errors >= 1)
    }

    @Test func aValueReplacedByGarbageIsReplacedByTheNextDownload() async throws {
        let server = try await offPool { try RedisServer() }
        defer { server.stop() }
        let urls = Self.urls(1, "garbage")
        let shared = try Self.tier(server.url)
        let first = Member(shared, urls: urls)
        _ = try await first.loadAll(urls)
        _ = try await shared.client.send(["SET", shared.codec.name(for: urls[0].absoluteString), "garbage"])
        let second = Member(try Self.tier(server.url), urls: urls)
        let responses = try await second.loadAll(urls)
        Self.check(responses, urls)
        #expect(responses[0].cacheLayer == .network)
        #expect(try await shared.entry(for: urls[0].absoluteString) != nil, "the download was shared again")
    }

    @Test func aFullRedisNeverFailsALoad() async throws {
        let server = try await offPool { try RedisServer(extraArguments: ["--maxmemory", "1mb", "--maxmemory-policy", "noeviction"]) }
        defer { server.stop() }
        let filler = try Self.tier(server.url)
        for i in 0..<8 {
            try? await filler.store(DataCacheEntry(data: Data(repeating: 1, count: 256 * 1024), metadata: DataCacheMetadata()),
                                    for: "filler-\(i)", timeToLive: .seconds(60))
        }
        let urls = Self.urls(8, "full")
        let member = Member(try Self.tier(server.url), urls: urls)
        Self.check(try await member.loadAll(urls), urls)
        #expect(member.pipeline.statistics.sharedCache.rejections >= 1, "OOM replies are counted")
    }

    @Test func aFullRedisStillServesWhatItHolds() async throws {
        let server = try await offPool { try RedisServer(extraArguments: ["--maxmemory-policy", "noeviction"]) }
        defer { server.stop() }
        let log = LogLines()
        let stored = Self.urls(10, "kept"), fresh = Self.urls(10, "new")
        let writer = Member(try Self.tier(server.url), urls: stored)
        _ = try await writer.loadAll(stored)
        // Full from now on: every write (entries and leases) is refused with OOM.
        _ = try await offPool { try server.command(["CONFIG", "SET", "maxmemory", "1"]) }
        let reader = Member(try Self.tier(server.url), urls: stored + fresh, log: log.logger)
        let old = try await reader.loadAll(stored)
        Self.check(old, stored)
        #expect(old.allSatisfy { $0.cacheLayer == .shared }, "reads go on when writes are refused")
        let new = try await reader.loadAll(fresh)
        #expect(new.allSatisfy { $0.cacheLayer == .network })
        let counters = reader.pipeline.statistics.sharedCache
        #expect(counters.skips == 0, "a refusal never takes the tier out of use")
        #expect(counters.rejections >= 10)
        #expect(log.warnings.count == 1, "\(log.warnings)")
    }

    @Test(.enabled(if: RedisCluster.isAvailable)) func throughAClusterWithASlotMovedMidRun() async throws {
        let cluster = try await offPool { try RedisCluster() }
        defer { cluster.stop() }
        let urls = Self.urls(30, "cluster")
        let shared = try Self.tier(cluster.seedURL)
        let first = Member(shared, urls: urls)
        Self.check(try await first.loadAll(Array(urls[..<15])), Array(urls[..<15]))
        // Move the slot of an entry already stored, and of one not stored yet.
        for url in [urls[0], urls[20]] {
            let slot = ClusterSlot.hashSlot(for: shared.codec.name(for: url.absoluteString))
            let owner = try cluster.owner(ofSlot: slot)
            let target = try #require(cluster.nodes.first { $0.port != owner.port })
            try await offPool { try cluster.migrateSlot(slot, to: target) }
        }
        Self.check(try await first.loadAll(Array(urls[15...])), Array(urls[15...]), offset: 15)
        #expect(first.pipeline.statistics.sharedCache.errors == 0)
        let second = Member(try Self.tier(cluster.seedURL), urls: [])
        let responses = try await second.loadAll(urls)
        Self.check(responses, urls)
        #expect(responses.allSatisfy { $0.cacheLayer == .shared })
    }

    @Test func serversThatAreNotAClusterAreRefusedNotSplit() async throws {
        let a = try await offPool { try RedisServer() }, b = try await offPool { try RedisServer() }
        defer { a.stop(); b.stop() }
        let client = RedisClient(try RedisConfiguration(url: "redis://\(a.address),\(b.address)"))
        defer { client.close() }
        await #expect {
            _ = try await client.send(["GET", "x"])
        } throws: { error in
            guard let error = error as? RedisError, error.kind == .invalidURL, let reason = error.detail else { return false }
            return reason.contains("not in a Redis Cluster")
        }
    }
}
