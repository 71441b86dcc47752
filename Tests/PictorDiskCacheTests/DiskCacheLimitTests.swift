import Foundation
import PictorCore
import PictorCrypto
import Testing
@testable import PictorDiskCache

@Suite(.timeLimit(.minutes(5)))
struct DiskCacheLimitTests {
    let directory = TestDirectory()
    let clock = TestClock()

    func makeCache(sizeLimit: Int = .max, maxAge: TimeInterval? = nil, trimRatio: Double = 0.7) throws -> DiskCache {
        var c = DiskCache.Configuration.test(directory, clock: clock)
        c.sizeLimit = sizeLimit
        c.maxAge = maxAge
        c.trimRatio = trimRatio
        return try DiskCache(configuration: c)
    }

    /// The on-disk size of a 1,000-byte entry with empty metadata (bytes + metadata + footer).
    static let entrySize = 1_000 + EntryContainer.trailer(payloadCount: 1_000, metadata: DataCacheMetadata(), created: 0, binding: KeyBinding(key: "")).count

    @Test func crossingTheSizeLimitTrimsLeastRecentlyUsedToTheRatio() throws {
        // Given a limit of ten entries and ten entries written one second apart
        let cache = try makeCache(sizeLimit: 10 * Self.entrySize, trimRatio: 0.5)
        for i in 0..<10 {
            cache.store(testBytes(1_000, seed: UInt64(i)), for: "k\(i)")
            cache.flush()
            clock.advance(1)
        }
        // And k0 and k1 read recently (access times recorded on the next writer pass)
        _ = cache.data(for: "k0")
        _ = cache.data(for: "k1")
        cache.flush()
        clock.advance(1)
        // When an eleventh entry crosses the limit
        cache.store(testBytes(1_000, seed: 99), for: "k10")
        cache.flush()
        // Then the least recently used go first, down to 50% of the limit
        #expect(cache.totalSize == 5 * Self.entrySize)
        let kept = Set((0...10).filter { cache.contains("k\($0)") })
        #expect(kept == [0, 1, 8, 9, 10])
        #expect(cache.statistics.evictedBySize == 6)
        #expect(directory.entryFileNames().count == 5)
    }

    @Test func underTheLimitNothingIsTrimmed() throws {
        let cache = try makeCache(sizeLimit: 10 * Self.entrySize)
        for i in 0..<10 { cache.store(testBytes(1_000), for: "k\(i)") }
        #expect(cache.trim() == 0)
        #expect(cache.count == 10)
    }

    @Test func trimAfterLoweringUsageIsExplicitToo() throws {
        // Given a cache over its limit written by an instance with a larger one
        let big = try makeCache(sizeLimit: 100_000)
        for i in 0..<20 {
            big.store(testBytes(1_000), for: "k\(i)")
            big.flush()
            clock.advance(1)
        }
        let small = try makeCache(sizeLimit: 10 * Self.entrySize, trimRatio: 0.7)
        // When trimmed explicitly
        #expect(small.trim() == 13)
        // Then the newest 7 remain
        #expect(Set((0..<20).filter { small.contains("k\($0)") }) == Set(13..<20))
    }

    @Test func entriesUnusedForMaxAgeAreRemoved() throws {
        // Given a one-hour max age
        let cache = try makeCache(maxAge: 3_600)
        cache.store(Data("old".utf8), for: "old")
        cache.store(Data("used".utf8), for: "used")
        cache.flush()
        clock.advance(3_000)
        _ = cache.data(for: "used")
        cache.store(Data("new".utf8), for: "new")
        clock.advance(1_000)
        // When expiry runs
        #expect(cache.removeExpired() == 1)
        // Then only the entry not touched for an hour is gone
        #expect(!cache.contains("old"))
        #expect(cache.contains("used") && cache.contains("new"))
        #expect(cache.statistics.evictedByAge == 1)
    }

    @Test func entriesUnusedForMaxAgeAreRemovedWhenTheCacheOpens() throws {
        // Given an entry last used 17 minutes ago and one used a minute ago
        let writer = try makeCache()
        writer.store(Data("old".utf8), for: "old")
        writer.flush()
        clock.advance(16 * 60)
        writer.store(Data("recent".utf8), for: "recent")
        writer.flush()
        clock.advance(60)
        // When the cache is opened with a one-minute max age (and its sweep timer)
        var c = DiskCache.Configuration.test(directory, clock: clock)
        c.maxAge = 90
        c.sweepInterval = 3_600
        let cache = try DiskCache(configuration: c)
        // Then the old entry is gone before the first read, well before the first sweep
        #expect(cache.data(for: "old") == nil)
        #expect(cache.data(for: "recent") == Data("recent".utf8))
        #expect(cache.statistics.evictedByAge == 1)
        #expect(directory.entryFileNames() == [SHA256.hexDigest("recent")])
    }

    @Test func withoutASweepTimerOpeningRemovesNothingByAge() throws {
        // A tool that only looks (`pictor cache stats`) opens with no sweep: nothing is removed
        // until it asks (removeExpired).
        let writer = try makeCache()
        writer.store(Data("old".utf8), for: "old")
        writer.flush()
        clock.advance(17 * 60)
        let cache = try makeCache(maxAge: 60)
        #expect(cache.count == 1)
        #expect(cache.statistics.evictedByAge == 0)
        #expect(cache.removeExpired() == 1)
    }

    @Test func readsUpdateAccessTimesInBatchesNotPerRead() throws {
        let cache = try makeCache()
        cache.store(Data("x".utf8), for: "a")
        cache.flush()
        let stored = try #require(cache.entries().first?.lastAccess)
        clock.advance(100)
        // When read (no writer pass yet), the index still has the old time
        _ = cache.data(for: "a")
        let gate = DispatchSemaphore(value: 0)
        cache.queue.async { gate.wait() }
        let index = try EntryIndex(path: directory.path + "/index.sqlite", synchronousFull: false)
        let before = try #require(try index.row(for: SHA256.hexDigest("a")))
        #expect(before.accessed == stored.timeIntervalSince1970)
        gate.signal()
        // Then the next writer pass records it
        cache.flush()
        #expect(cache.entries().first?.lastAccess == Date(timeIntervalSince1970: clock.now))
    }

    @Test func theSweepTimerEnforcesLimitsWithoutCalls() async throws {
        // Given a cache with a short sweep interval and an entry older than maxAge
        var c = DiskCache.Configuration.test(directory, clock: clock)
        c.maxAge = 60
        c.sweepInterval = 0.05
        let cache = try DiskCache(configuration: c)
        cache.store(Data("x".utf8), for: "a")
        cache.flush()
        clock.advance(120)
        // Then a sweep removes it without any call (polled, no fixed sleep)
        let deadline = ContinuousClock.now + .seconds(30)
        while cache.statistics.evictedByAge == 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(cache.statistics.evictedByAge == 1)
        #expect(!cache.contains("a"))
    }

    @Test func repeatedReadsWithinAMinuteRecordOneAccessTime() throws {
        let cache = try makeCache()
        cache.store(Data("x".utf8), for: "a")
        cache.flush()
        clock.advance(100)
        _ = cache.data(for: "a")
        let first = clock.now
        clock.advance(30)
        _ = cache.data(for: "a")
        cache.flush()
        // Then the second read, 30 s later, did not move the time
        #expect(cache.entries().first?.lastAccess == Date(timeIntervalSince1970: first))
        clock.advance(31)
        _ = cache.data(for: "a")
        cache.flush()
        #expect(cache.entries().first?.lastAccess == Date(timeIntervalSince1970: clock.now))
    }
}
