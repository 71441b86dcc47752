import Testing
@testable import PictorCore

@Suite("MemoryCache: time to live with a manual clock")
struct MemoryCacheTTLTests {
    @Test func expiredEntriesAreNeverReturned() {
        let clock = ManualCacheClock()
        let cache = MemoryCache<String, Int>(ttl: 10, clock: clock)
        cache.set(1, for: "a")
        clock.advance(by: 9.999)
        #expect(cache.value(for: "a") == 1)
        clock.advance(by: 0.001)                           // expiry is inclusive
        #expect(cache.contains("a") == false)
        #expect(cache.value(for: "a") == nil)
        #expect(cache.count == 0)
        let stats = cache.statistics
        #expect(stats.evictions(.expired) == 1 && stats.misses == 1 && stats.hits == 1)
    }

    @Test func perEntryTTLOverridesTheDefault() {
        let clock = ManualCacheClock()
        let cache = MemoryCache<String, Int>(clock: clock)
        cache.set(1, for: "forever")
        cache.set(2, for: "short", ttl: 5)
        clock.advance(by: 1_000_000)
        #expect(cache.value(for: "forever") == 1)
        #expect(cache.value(for: "short") == nil)
    }

    @Test func replacingRestartsTheTTL() {
        let clock = ManualCacheClock()
        let cache = MemoryCache<String, Int>(ttl: 10, clock: clock)
        cache.set(1, for: "a")
        clock.advance(by: 8)
        cache.set(2, for: "a")
        clock.advance(by: 8)
        #expect(cache.value(for: "a") == 2)
        cache.set(3, for: "a", ttl: .infinity)
        clock.advance(by: 100)
        #expect(cache.value(for: "a") == 3)
        #expect(cache.checkInvariants() == nil)
    }

    @Test func nonPositiveTTLIsRefused() {
        let cache = MemoryCache<String, Int>(clock: ManualCacheClock())
        cache.set(1, for: "a", ttl: 0)
        cache.set(1, for: "b", ttl: -1)
        cache.set(1, for: "c", ttl: .nan)
        #expect(cache.count == 0)
        #expect(cache.statistics.rejections == 3)
    }

    @Test func removeExpiredSweepsOnlyExpiredEntries() {
        let clock = ManualCacheClock()
        let cache = MemoryCache<Int, Int>(clock: clock)
        for i in 0..<10 { cache.set(i, for: i, cost: 1, ttl: Double(i + 1)) }
        cache.set(100, for: 100, cost: 1)
        clock.advance(by: 5)
        cache.removeExpired()
        #expect(Set(cache.keysByRecency) == [5, 6, 7, 8, 9, 100])
        #expect(cache.statistics.evictions(.expired) == 5)
        #expect(cache.totalCost == 6)
        #expect(cache.checkInvariants() == nil)
    }

    @Test func moderatePressureDropsExpiredFirst() {
        let clock = ManualCacheClock()
        let cache = MemoryCache<Int, Int>(clock: clock)
        cache.set(0, for: 0, cost: 10, ttl: 1)
        for i in 1..<5 { cache.set(i, for: i, cost: 10) }
        clock.advance(by: 2)
        cache.handleMemoryPressure(.moderate)
        #expect(cache.keysByRecency == [4, 3])
        #expect(cache.statistics.evictions(.expired) == 1)
        #expect(cache.statistics.evictions(.memoryPressure) == 2)
    }

    @Test func monotonicClockMovesForward() {
        let clock = MonotonicCacheClock()
        let a = clock.now(), b = clock.now()
        #expect(a > 0 && b >= a)
    }
}
