import Foundation
import PictorCore
import PictorCrypto
@testable import PictorRedis
import PictorTestSupport
import Synchronization
import Testing

private func testKey(_ seed: Int) throws -> EncryptionKey {
    try EncryptionKey(bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 &* (2 * seed + 3) &+ seed) })
}

private let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0x42, count: 2000) + Data([0xFF, 0xD9])

private func entry(_ data: Data = jpeg, etag: String = "\"e\"") -> DataCacheEntry {
    DataCacheEntry(data: data, metadata: DataCacheMetadata(etag: etag, cacheControl: "max-age=600",
                                                           expiresAt: Date(timeIntervalSince1970: 1_900_000_000.25), format: .jpeg))
}

/// ``RedisSharedCache`` on a real `redis-server`: entries, leases, TTLs, keys, and what an
/// operator can read.
@Suite(.enabled(if: RedisServer.isAvailable), .serialized, .timeLimit(.minutes(5)))
struct RedisSharedCacheTests {
    @Test func entriesRoundTripWithTheirTimeToLive() async throws {
        let server = try await offPool { try RedisServer() }
        defer { server.stop() }
        let cache = try RedisSharedCache(url: patient(server.url))
        let key = "https://images.example.test/a.jpg"
        #expect(try await cache.entry(for: key) == nil)
        try await cache.store(entry(), for: key, timeToLive: .seconds(90))
        #expect(try await cache.entry(for: key) == entry())
        let ttl = try await cache.client.send(["PTTL", cache.codec.name(for: key)])
        #expect((1...90_000).contains(ttl.integer ?? 0), "set with PX: counting down from 90 s")
        try await cache.removeEntry(for: key)
        #expect(try await cache.entry(for: key) == nil)
    }

    @Test func oneLeaseHolderAtATimeAndOnlyTheHolderReleases() async throws {
        let server = try await offPool { try RedisServer() }
        defer { server.stop() }
        let a = try RedisSharedCache(url: patient(server.url)), b = try RedisSharedCache(url: patient(server.url))
        let key = "https://images.example.test/lease.jpg"
        // Long enough never to expire while a busy machine runs the suite (this is not the
        // expiry check, which follows with its own short lease).
        let lease = try #require(try await a.acquireLease(for: key, duration: .seconds(3600)))
        #expect(try await b.acquireLease(for: key, duration: .seconds(3600)) == nil)
        #expect(try await b.isLeased(key))
        try await b.releaseLease(SharedCacheLease(key: key, token: "someone-else"))
        #expect(try await b.isLeased(key), "a stranger's token releases nothing")
        try await a.releaseLease(lease)
        #expect(try await !b.isLeased(key))
        let short = try #require(try await b.acquireLease(for: key, duration: .milliseconds(50)))
        try await Task.sleep(for: .milliseconds(120))
        #expect(try await !a.isLeased(key), "a crashed holder's lease expires")
        try await b.releaseLease(short)
    }

    @Test func aValueSwappedUnderAnotherNameIsAMiss() async throws {
        let server = try await offPool { try RedisServer() }
        defer { server.stop() }
        for key in [nil, try testKey(1)] {
            let cache = try RedisSharedCache(url: patient(server.url), masterKey: key)
            let cat = "https://images.example.test/cat.jpg", dog = "https://images.example.test/dog.jpg"
            try await cache.store(entry(), for: cat, timeToLive: .seconds(60))
            try await cache.store(entry(Data([0x89, 0x50, 0x4E, 0x47]) + Data(repeating: 1, count: 100)), for: dog, timeToLive: .seconds(60))
            // The operator copies cat's value over dog's name.
            guard case .bulk(let catValue) = try await cache.client.send(["GET", cache.codec.name(for: cat)]) else {
                Issue.record("no value"); continue
            }
            _ = try await cache.client.send([Data("SET".utf8), Data(cache.codec.name(for: dog).utf8), catValue], key: nil)
            #expect(try await cache.entry(for: dog) == nil)
            #expect(try await cache.entry(for: cat) == entry())
        }
    }

    @Test func garbageOrAnotherTypeUnderAnEntrysNameIsAMiss() async throws {
        let server = try await offPool { try RedisServer() }
        defer { server.stop() }
        let cache = try RedisSharedCache(url: patient(server.url))
        let key = "https://images.example.test/g.jpg"
        _ = try await cache.client.send(["SET", cache.codec.name(for: key), "not an entry"])
        #expect(try await cache.entry(for: key) == nil)
        _ = try await cache.client.send(["DEL", cache.codec.name(for: key)])
        _ = try await cache.client.send(["LPUSH", cache.codec.name(for: key), "x"])
        #expect(try await cache.entry(for: key) == nil)
        // Error replies of a healthy server are refusals; the others are failures of the tier.
        #expect(RedisSharedCache.error("OOM command not allowed when used memory > 'maxmemory'.") as? SharedDataCacheError != nil)
        #expect(RedisSharedCache.error("WRONGTYPE Operation against a key holding the wrong kind of value") as? SharedDataCacheError != nil)
        #expect(RedisSharedCache.error("NOAUTH Authentication required.") as? RedisError == .server("NOAUTH Authentication required."))
        #expect(RedisSharedCache.error("LOADING Redis is loading the dataset in memory") is RedisError)
    }

    @Test func withAKeyNothingInRedisRevealsAURLAHostOrImageBytes() async throws {
        let server = try await offPool { try RedisServer() }
        defer { server.stop() }
        let cache = try RedisSharedCache(url: server.url, masterKey: try testKey(2))
        // Bodies that do not compress (a plain store's DUMP would compress a repeated byte out
        // of sight) and whose 16-byte pieces searched for below cannot turn up in 28 KB of
        // ciphertext by chance (3-byte signatures could: once in about 600 runs).
        var generator = SplitMix64(seed: 0x5EED)
        let noise = { (count: Int) in Data((0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }) }
        let jpegBody = noise(2000), pngBody = noise(500)
        let privateJPEG = Data([0xFF, 0xD8, 0xFF, 0xE0]) + jpegBody + Data([0xFF, 0xD9])
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + pngBody
        let urls = (0..<20).map { "https://images.example.test/gallery/photo-\($0).jpg" }
        for (i, url) in urls.enumerated() {
            try await cache.store(entry(i % 2 == 0 ? privateJPEG : png, etag: "\"etag-\(i)\""), for: url, timeToLive: .seconds(3600))
        }
        let lease = try #require(try await cache.acquireLease(for: urls[0], duration: .seconds(3600)))
        try await cache.record({ var s = SharedCacheStatistics(); s.hits = 3; return s }())
        var everything = Data()
        guard case .array(let names) = try await cache.client.send(["KEYS", "*"]) else { Issue.record("KEYS"); return }
        #expect(names.count == 22)
        for case .bulk(let name) in names {
            everything.append(name)
            if case .bulk(let dump) = try await cache.client.send([Data("DUMP".utf8), name], key: name) { everything.append(dump) }
        }
        for needle in ["images.example.test", "gallery", "photo-1", "https", "etag-"] {
            #expect(everything.range(of: Data(needle.utf8)) == nil, "found \(needle)")
        }
        for piece in [privateJPEG.prefix(16), jpegBody.dropFirst(1000).prefix(16), png.prefix(16), pngBody.suffix(16)] {
            #expect(everything.range(of: piece) == nil, "found image bytes \(Array(piece))")
        }
        try await cache.releaseLease(lease)
        // And the right key reads them all back; another key reads nothing.
        for url in urls { #expect(try await cache.entry(for: url) != nil) }
        let other = try RedisSharedCache(url: server.url, masterKey: try testKey(3))
        for url in urls { #expect(try await other.entry(for: url) == nil) }
        let plain = try RedisSharedCache(url: server.url)
        for url in urls { #expect(try await plain.entry(for: url) == nil) }
    }

    @Test func aFullRedisRefusesWritesWithAnErrorAndStillServesReads() async throws {
        let server = try await offPool { try RedisServer(extraArguments: ["--maxmemory", "2mb", "--maxmemory-policy", "noeviction"]) }
        defer { server.stop() }
        let cache = try RedisSharedCache(url: patient(server.url))
        try await cache.store(entry(), for: "kept", timeToLive: .seconds(60))
        let big = Data(repeating: 7, count: 512 * 1024)
        var refused = false
        for i in 0..<12 {
            do { try await cache.store(entry(big), for: "filler-\(i)", timeToLive: .seconds(60)) } catch let rejection as SharedDataCacheError {
                #expect(rejection.reason.hasPrefix("OOM"))
                refused = true
                break
            }
        }
        #expect(refused)
        #expect(try await cache.entry(for: "kept") == entry())
    }

    @Test func statisticsAddUpAcrossProcessesAndTheReportReadsRedis() async throws {
        let server = try await offPool { try RedisServer(extraArguments: ["--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru"]) }
        defer { server.stop() }
        let cache = try RedisSharedCache(url: patient(server.url))
        var s = SharedCacheStatistics()
        s.hits = 2
        s.leasesTaken = 1
        try await cache.record(s)
        try await cache.record(s)
        try await cache.store(entry(), for: "x", timeToLive: .seconds(60))
        let report = try await cache.report()
        #expect(report.fleet.hits == 4)
        #expect(report.fleet.leasesTaken == 2)
        #expect(report.primaries == 1)
        #expect(report.keys == 2)
        #expect(report.maximumMemory == 64 * 1024 * 1024)
        #expect(report.evictionPolicy == "allkeys-lru")
        #expect(report.usedMemory > 0)
    }
}
