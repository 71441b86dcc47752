import Foundation
import PictorCore
import PictorCurl
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
            // CurlTransport, as the `Pictor` product's pipelines: FoundationNetworking's URLSession
            // (the core's default transport) leaks about 100 bytes of libcurl URL parts on every
            // request in swift-corelibs-foundation 6.3 (docs/sanitizers.md), which fails the
            // address run's leak check over these hundreds of downloads.
            let loader = DataLoader(transport: CurlTransport()) { $0.maximumConcurrentBackgroundRequests = 4 }
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
        // A node timeout (3 s) that a node starved of CPU by a loaded machine does not reach: a
        // node declared failed by mistake is replaced too, and the writes it had not yet
        // replicated (leases among them) are lost, costing downloads. Still well within the
        // tiers' 30 s command timeout, which rides out the failover.
        let cluster = try await offPool { try RedisCluster(replicasPerPrimary: 1, nodeTimeout: 3000) }
        defer { cluster.stop() }
        let origin = try await offPool { try FaultServer() }
        defer { origin.stop() }
        let key = UUID().uuidString
        let urls = Self.urls(500, on: origin, key: key)
        let members = try (0..<2).map { _ in Member(try Self.tier(cluster)) }
        let prefetchers = members.map { ImagePrefetcher(pipeline: $0.pipeline, destination: .diskCache) }
        for prefetcher in prefetchers { prefetcher.startPrefetching(with: urls) }

        // Kill a primary once the fleet is well into the run; the cluster notices after its node
        // timeout (3 s), and the replica wins the election: more than three seconds of traffic
        // meets a dead node, then a cluster that refuses (CLUSTERDOWN) until the promotion.
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

    @Test func aNodeBackEmptyGivesMissesNotErrors() async throws {
        // No replicas: a primary that restarts comes back as the owner of its slots, empty.
        let cluster = try await offPool { try RedisCluster() }
        defer { cluster.stop() }
        let origin = try await offPool { try FaultServer() }
        defer { origin.stop() }
        let key = UUID().uuidString
        let urls = Self.urls(60, on: origin, key: key)
        let shared = try Self.tier(cluster)
        let first = Member(shared)
        for url in urls { _ = try await first.pipeline.data(for: url) }

        let victim = cluster.nodes[0]
        let slots = urls.map { ClusterSlot.hashSlot(for: shared.codec.name(for: first.pipeline.dataCacheKey(for: ImageRequest(url: $0)))) }
        let lost = try await offPool { try slots.filter { try cluster.owner(ofSlot: $0).port == victim.port }.count }
        #expect(lost > 0 && lost < urls.count)
        try await offPool {
            victim.kill()
            try cluster.restart(victim)
        }
        #expect(try await offPool { try victim.command(["DBSIZE"]) } == .integer(0))

        // The same client: its pooled connections to the restarted node are stale.
        let second = Member(shared)
        var layers: [CacheLayer] = []
        for url in urls { layers.append(try await second.pipeline.data(for: url).cacheLayer) }
        Self.checkBytes([second], urls)
        #expect(layers.filter { $0 == .network }.count == lost)
        #expect(layers.filter { $0 == .shared }.count == urls.count - lost)
        let counters = second.pipeline.statistics.sharedCache
        #expect(counters.errors == 0, "\(counters)")
        #expect(counters.misses >= lost)
        #expect(try await offPool { try origin.requestCount(prefix: "/image?key=\(key)") } == urls.count + lost)
    }

    @Test func theWholeClusterDownMidRunFailsOpenWithOneWarning() async throws {
        let cluster = try await offPool { try RedisCluster() }
        defer { cluster.stop() }
        let origin = try await offPool { try FaultServer() }
        defer { origin.stop() }
        let key = UUID().uuidString
        let urls = Self.urls(200, on: origin, key: key)
        let log = LogLines()
        let member = Member(try Self.tier(cluster), log: log.logger)
        let prefetcher = ImagePrefetcher(pipeline: member.pipeline, destination: .diskCache)
        prefetcher.startPrefetching(with: urls)
        #expect(await Self.wait(seconds: 120) { prefetcher.statistics.completed >= 50 })
        let completedAtKill = prefetcher.statistics.completed
        try await offPool { for node in cluster.nodes { node.kill() } }
        await prefetcher.waitUntilIdle()

        #expect(completedAtKill < urls.count, "the cluster went down mid-run")
        #expect(prefetcher.statistics.completed == urls.count)
        #expect(prefetcher.statistics.failed == 0)
        Self.checkBytes([member], urls)
        #expect(try await offPool { try origin.requestCount(prefix: "/image?key=\(key)") } == urls.count)
        let counters = member.pipeline.statistics.sharedCache
        #expect(counters.errors >= 1)
        #expect(counters.skips >= 1, "skipped once the breaker opened")
        #expect(log.warnings.count == 1, "one line, not one per image: \(log.warnings)")
    }

    /// Writes `{tag}:n` keys one after another and reads each back, until stopped.
    final class Writer: Sendable {
        let client: RedisClient
        let tag: String
        let written = Atomic<Int>(0)
        let stopped = Atomic<Bool>(false)
        let failures = Mutex<[String]>([])

        init(client: RedisClient, tag: String) {
            self.client = client
            self.tag = tag
        }

        func name(_ i: Int) -> String { "\(tag):\(i)" }
        func value(_ i: Int) -> Data { Data("value \(i)".utf8) }

        func run() async {
            var i = 0
            while !stopped.load(ordering: .relaxed) {
                let name = Data(name(i).utf8)
                do {
                    let set = try await client.send([Data("SET".utf8), name, value(i)], key: name)
                    let get = try await client.send([Data("GET".utf8), name], key: name)
                    if set != .status("OK") || get != .bulk(value(i)) { failures.withLock { $0.append("\(i): \(set) \(get)") } }
                } catch {
                    failures.withLock { $0.append("\(i): \(error)") }
                }
                i += 1
                written.store(i, ordering: .relaxed)
            }
        }

        /// Waits until `count` more keys were written (at most 60 s).
        func advance(by count: Int) async -> Bool {
            let goal = written.load(ordering: .relaxed) + count
            return await RedisClusterFailoverTests.wait(seconds: 60) { written.load(ordering: .relaxed) >= goal }
        }
    }

    @Test func aSlotMigratedAcrossAFailoverAnswersAskAndMovedWithoutErrors() async throws {
        // The failover is coordinated, so the node timeout only decides whether a node starved
        // of CPU is declared failed and replaced, losing writes it had not replicated yet: 5 s,
        // which a loaded machine does not reach.
        let cluster = try await offPool { try RedisCluster(replicasPerPrimary: 1, nodeTimeout: 5000) }
        defer { cluster.stop() }
        let client = RedisClient(try RedisConfiguration(url: cluster.seedURL + "?connect_timeout=5s&command_timeout=30s"))
        defer { client.close() }
        let tag = "{migrating}"
        let slot = ClusterSlot.hashSlot(for: tag)
        let writer = Writer(client: client, tag: tag)
        let writes = Task { await writer.run() }
        defer { writer.stopped.store(true, ordering: .relaxed) }
        #expect(await writer.advance(by: 50))

        // ASK: the slot moves key by key to another primary while writes go on.
        let source = try await offPool { try cluster.owner(ofSlot: slot) }
        let target = try #require(await offPool { cluster.primaries().first { $0.port != source.port } })
        let migration = try await offPool { try cluster.beginSlotMigration(slot, to: target) }
        try await offPool { try cluster.moveKeys([writer.name(0), writer.name(1)], of: migration) }
        #expect(try await offPool { try source.command(["GET", writer.name(0)]) }.description.hasPrefix("(error) ASK"))
        #expect(try await client.send([Data("GET".utf8), Data(writer.name(0).utf8)], key: Data(writer.name(0).utf8)) == .bulk(writer.value(0)))
        #expect(await writer.advance(by: 30))
        try await offPool {
            try cluster.moveAllKeys(of: migration)
            try cluster.finishSlotMigration(migration)
        }
        #expect(await writer.advance(by: 30))
        #expect(client.currentSlotMap?.primary(forSlot: slot)?.port == target.port)

        // MOVED across a failover: the new owner's replica takes over, writes go on.
        let replica = try #require(await offPool { cluster.replica(of: target) })
        try await offPool { try cluster.failOver(to: replica, mode: .coordinated) }
        #expect(try await offPool { try target.command(["GET", writer.name(0)]) }.description.hasPrefix("(error) MOVED"))
        #expect(await writer.advance(by: 30))
        #expect(client.currentSlotMap?.primary(forSlot: slot)?.port == replica.port)

        // And back, from the promoted replica to the first owner, under writes again.
        try await offPool { try cluster.migrateSlot(slot, to: source) }
        #expect(await writer.advance(by: 30))
        writer.stopped.store(true, ordering: .relaxed)
        await writes.value

        #expect(writer.failures.withLock { $0 } == [])
        for i in 0..<writer.written.load(ordering: .relaxed) {
            let name = Data(writer.name(i).utf8)
            #expect(try await client.send([Data("GET".utf8), name], key: name) == .bulk(writer.value(i)), "\(writer.name(i))")
        }
        #expect(client.currentSlotMap?.primary(forSlot: slot)?.port == source.port)
    }

    @Test func aLeaseTakenTwiceWithOneTokenIsHeldNotHeldElsewhere() async throws {
        let server = try await offPool { try RedisServer() }
        defer { server.stop() }
        let shared = try RedisSharedCache(url: server.url + "?connect_timeout=5s&command_timeout=30s")
        let first = try await shared.acquireLease(for: "k", duration: .seconds(60), token: "mine")
        #expect(first == SharedCacheLease(key: "k", token: "mine"))
        // A re-sent call (its first send may have run) finds the lease its own.
        #expect(try await shared.acquireLease(for: "k", duration: .seconds(60), token: "mine") == first)
        #expect(try await shared.acquireLease(for: "k", duration: .seconds(60), token: "theirs") == nil)
        #expect(try await shared.isLeased("k"))
        try await shared.releaseLease(try #require(first))
        #expect(try await shared.acquireLease(for: "k", duration: .seconds(60), token: "theirs") != nil)
    }
}
