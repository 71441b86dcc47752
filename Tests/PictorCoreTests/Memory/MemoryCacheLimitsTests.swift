import Testing
@testable import PictorCore

@Suite("MemoryCache: limits, trims and memory pressure")
struct MemoryCacheLimitsTests {
    @Test func costLimitEvictsLeastRecentlyUsed() {
        let cache = MemoryCache<String, Int>(costLimit: 100)
        cache.set(1, for: "a", cost: 40)
        cache.set(2, for: "b", cost: 40)
        _ = cache.value(for: "a")
        cache.set(3, for: "c", cost: 40)                // 120 > 100: b goes
        #expect(cache.keysByRecency == ["c", "a"])
        #expect(cache.totalCost == 80)
        #expect(cache.statistics.evictions(.costLimit) == 1)
    }

    @Test func oneInsertCanEvictSeveralEntries() {
        let cache = MemoryCache<Int, Int>(costLimit: 100)
        for i in 0..<10 { cache.set(i, for: i, cost: 10) }
        cache.set(99, for: 99, cost: 95)
        #expect(cache.keysByRecency == [99])
        #expect(cache.statistics.evictions(.costLimit) == 10)
        #expect(cache.checkInvariants() == nil)
    }

    @Test func entryCostLimitRefusesLargeEntriesAndDropsTheOldValue() {
        let cache = MemoryCache<String, Int>(costLimit: 1_000, entryCostLimit: 0.1)
        cache.set(1, for: "small", cost: 100)            // exactly 10%: stored
        cache.set(2, for: "big", cost: 101)
        #expect(cache.value(for: "big") == nil)
        cache.set(3, for: "small", cost: 500)             // refused; old value removed
        #expect(cache.value(for: "small") == nil)
        #expect(cache.totalCost == 0)
        #expect(cache.statistics.rejections == 2)
    }

    @Test func entryCostLimitWithUnboundedCostLimitDoesNotOverflow() {
        let cache = MemoryCache<Int, Int>(costLimit: .max, entryCostLimit: 1.0)
        cache.set(1, for: 1, cost: .max)
        #expect(cache.value(for: 1) == 1)
    }

    @Test func zeroLimitsStoreNothing() {
        let noCount = MemoryCache<Int, Int>(countLimit: 0)
        noCount.set(1, for: 1)
        #expect(noCount.count == 0)
        let noCost = MemoryCache<Int, Int>(costLimit: 0)
        noCost.set(1, for: 1, cost: 0)                    // free entries fit a zero budget
        noCost.set(2, for: 2, cost: 1)
        #expect(noCost.keysByRecency == [1])
    }

    @Test func loweringLimitsEvictsAtOnce() {
        let cache = MemoryCache<Int, Int>()
        for i in 0..<10 { cache.set(i, for: i, cost: 10) }
        cache.countLimit = 5
        #expect(cache.keysByRecency == [9, 8, 7, 6, 5])
        cache.costLimit = 30
        #expect(cache.keysByRecency == [9, 8, 7])
        let stats = cache.statistics
        #expect(stats.evictions(.countLimit) == 5 && stats.evictions(.costLimit) == 2)
    }

    @Test func trimToCostAndCount() {
        let cache = MemoryCache<Int, Int>()
        for i in 0..<10 { cache.set(i, for: i, cost: 10) }
        cache.trim(toCost: 55)
        #expect(cache.keysByRecency == [9, 8, 7, 6, 5])
        cache.trim(toCount: 2)
        #expect(cache.keysByRecency == [9, 8])
        cache.trim(toCount: -1)
        #expect(cache.count == 0)
        #expect(cache.statistics.evictions(.trimmed) == 10)
        #expect(cache.checkInvariants() == nil)
    }

    @Test func memoryPressureModerateHalvesCriticalClears() {
        let cache = MemoryCache<Int, Int>()
        for i in 0..<10 { cache.set(i, for: i, cost: 10) }
        cache.handleMemoryPressure(.moderate)
        #expect(cache.keysByRecency == [9, 8, 7, 6, 5])
        cache.handleMemoryPressure(.critical)
        #expect(cache.count == 0 && cache.totalCost == 0)
        let stats = cache.statistics
        #expect(stats.evictions(.memoryPressure) == 10 && stats.removals == 0)
        cache.set(1, for: 1)                                // usable afterwards
        #expect(cache.value(for: 1) == 1)
        #expect(cache.checkInvariants() == nil)
    }
}
