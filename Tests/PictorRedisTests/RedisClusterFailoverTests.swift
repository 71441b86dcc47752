import Foundation
import PictorCore
@testable import PictorRedis
import PictorTestSupport
import Synchronization
import Testing

/// A Redis Cluster that loses nodes while a fleet uses it: a primary killed and its replica
/// promoted, a node back empty, the whole cluster gone, slots migrated across a failover.
///
/// Every wait on the cluster is a bounded poll off the cooperative pool; nothing is asserted on
/// how long anything took. The tiers are given timeouts a loaded machine cannot miss, so that
/// what is counted is what a failover costs, not what a slow machine does.
@Suite(.enabled(if: RedisCluster.isAvailable && FaultServer.isAvailable), .serialized, .timeLimit(.minutes(4)))
struct RedisClusterFailoverTests {
    /// One process of a fleet: its own pipeline and local cache, a real origin on loopback.
    struct Member {
        let disk = InMemoryDataCache()
        let shared: RedisSharedCache
        let pipeline: ImagePipeline

        init(_ shared: RedisSharedCache, log: PictorLog = .disabled) {
            self.shared = shared
            let loader = DataLoader(transport: nil) { $0.maximumConcurrentBackgroundRequests = 4 }
            var configuration = ImagePipeline.Configuration(
                dataLoader: loader, decoder: CountingImageDecoder(), dataCache: disk, logger: log)
            configuration.sharedCache = shared
            // A holder waits in the loader's queue behind hundreds of prefetches: leases and waits
            // a loaded machine cannot outlast, so that only the failover can cost a download.
            configuration.sharedCachePolicy.leaseDuration = .seconds(120)
            configuration.sharedCachePolicy.maximumWait = .seconds(120)
            // One outage, one breaker opening: no trial operation within a run.
            configuration.sharedCachePolicy.coolDown = .seconds(600)
            pipeline = ImagePipeline(configuration: configuration)
        }

        /// The bytes the local cache holds for `url`.
        func data(for url: URL) -> Data? {
            disk.entry(for: pipeline.dataCacheKey(for: ImageRequest(url: url)))?.data
        }
    }

    /// Lines logged by a pipeline.
    final class LogLines: Sendable {
        let lines = Mutex<[String]>([])
        var logger: PictorLog { PictorLog(level: .info) { level, message in self.lines.withLock { $0.append("\(level): \(message)") } } }
        var warnings: [String] { lines.withLock { $0.filter { $0.hasPrefix("warning") } } }
    }

    /// Timeouts no loaded machine misses: a failover is ridden out within the command timeout.
    static func tier(_ cluster: RedisCluster) throws -> RedisSharedCache {
        try RedisSharedCache(url: cluster.seedURL + "?connect_timeout=5s&command_timeout=30s")
    }

    /// `count` URLs of `origin`, each a PNG followed by as many zero bytes as its index, so that
    /// every URL has bytes of its own.
    static func urls(_ count: Int, on origin: FaultServer, key: String) -> [URL] {
        (0..<count).map { origin.url("/image?key=\(key)&pad=\($0)") }
    }

    /// Whether every member holds, for each URL, the first URL's PNG followed by the URL's own
    /// number of zero bytes (a URL given another's bytes has another length).
    static func checkBytes(_ members: [Member], _ urls: [URL]) {
        for member in members {
            guard let base = member.data(for: urls[0]), base.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
                Issue.record("no PNG for \(urls[0])")
                return
            }
            for (i, url) in urls.enumerated() {
                guard let data = member.data(for: url) else { Issue.record("\(url) was not delivered"); continue }
                #expect(data.count == base.count + i && data.starts(with: base) && data.dropFirst(base.count).allSatisfy { $0 == 0 },
                        "\(url) has another URL's bytes")
            }
        }
    }

    /// Waits, without holding a thread, until `condition` holds (at most `seconds`).
    static func wait(seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    @Test func aPrimaryKilledMidPrefetchFailsOverWithoutErrorsOrDoubleDownloads() async throws {
        let cluster = try await offPool { try RedisCluster(replicasPerPrimary: 1, nodeTimeout: 1000) }
        defer { cluster.stop() }
        let origin = try await offPool { try FaultServer() }
        defer { origin.stop() }
        let key = UUID().uuidString
        let urls = Self.urls(500, on: origin, key: key)
        let members = try (0..<2).map { _ in Member(try Self.tier(cluster)) }
        let prefetchers = members.map { ImagePrefetcher(pipeline: $0.pipeline, destination: .diskCache) }
        for prefetcher in prefetchers { prefetcher.startPrefetching(with: urls) }

        // Kill a primary once the fleet is well into the run; the cluster notices after its node
        // timeout (1 s), and the replica wins the election: more than a second of traffic meets
        // a dead node, then a cluster that refuses (CLUSTERDOWN) until the promotion.
        let started = await Self.wait(seconds: 120) { prefetchers.map(\.statistics.completed).reduce(0, +) >= 100 }
        #expect(started)
        let victim = cluster.nodes[0]
        let replica = try #require(await offPool { cluster.replica(of: victim) })
        let map = try #require(members[0].shared.client.currentSlotMap)
        let victimSlot = try #require((0..<ClusterSlot.count).first { map.primary(forSlot: $0)?.port == victim.port })
        let completedAtKill = prefetchers.map(\.statistics.completed).reduce(0, +)
        try await offPool {
            victim.kill()
            try cluster.awaitPromotion(of: replica)
        }
        #expect(completedAtKill < 1000, "the primary died mid-run")
        for prefetcher in prefetchers { await prefetcher.waitUntilIdle() }

        for prefetcher in prefetchers {
            #expect(prefetcher.statistics.completed == 500)
            #expect(prefetcher.statistics.failed == 0)
        }
        Self.checkBytes(members, urls)
        let downloads = try await offPool { try origin.requestCount(prefix: "/image?key=\(key)") }
        #expect(downloads <= 550, "\(downloads) origin requests for 500 URLs")
        for member in members {
            let counters = member.pipeline.statistics.sharedCache
            #expect(counters.errors == 0, "a failover is ridden out: \(counters)")
            #expect(counters.skips == 0)
            // The map was learnt anew, without a restart: the replica serves the dead node's slots.
            let fresh = try #require(member.shared.client.currentSlotMap)
            #expect(fresh.primary(forSlot: victimSlot)?.port == replica.port)
            #expect(!fresh.primaries.contains { $0.port == victim.port })
            #expect(fresh.coversAllSlots)
        }
    }
}
