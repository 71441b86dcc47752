import PictorTestSupport
import Testing
@testable import PictorCore

@Suite("MemoryCache: concurrent stress")
struct MemoryCacheStressTests {
    /// Many tasks hammer one small cache with random get/set/remove; afterwards every structural
    /// invariant holds, the limits hold, and the counters add up.
    @Test func concurrentRandomOperationsKeepInvariants() async {
        let cache = MemoryCache<Int, [Int]>(costLimit: 2_000, countLimit: 64, clock: ManualCacheClock())
        let tasks = 8, operations = 20_000
        let counts = await withTaskGroup(of: (sets: Int, gets: Int).self) { group in
            for t in 0..<tasks {
                group.addTask {
                    var rng = SplitMix64(seed: UInt64(t + 1))
                    var sets = 0, gets = 0
                    for i in 0..<operations {
                        let key = Int(rng.next() % 200)
                        switch rng.next() % 10 {
                        case 0..<5:
                            gets += 1
                            if let value = cache.value(for: key) { precondition(value.first == key) }
                        case 5..<9:
                            sets += 1
                            let ttl: Double? = i % 7 == 0 ? 60 : nil
                            cache.set([key, i], for: key, cost: Int(rng.next() % 100), ttl: ttl)
                        default:
                            if let value = cache.removeValue(for: key) { precondition(value.first == key) }
                        }
                    }
                    return (sets, gets)
                }
            }
            var total = (sets: 0, gets: 0)
            for await c in group { total.sets += c.sets; total.gets += c.gets }
            return total
        }
        #expect(cache.checkInvariants() == nil)
        let stats = cache.statistics
        #expect(stats.count <= 64 && stats.totalCost <= 2_000)
        #expect(stats.count == cache.keysByRecency.count)
        #expect(stats.hits + stats.misses == counts.gets)
        #expect(stats.insertions + stats.replacements + stats.rejections == counts.sets)
        #expect(stats.insertions == stats.count + stats.removals + stats.totalEvictions)
    }
}
