import PictorTestSupport
import Testing
@testable import PictorCore

@Suite("MemoryCache: LRU order and accounting")
struct MemoryCacheLRUTests {
    @Test func getRefreshesRecencyAndEvictsLeastRecentlyUsed() throws {
        let cache = MemoryCache<String, Int>(countLimit: 3)
        cache.set(1, for: "a"); cache.set(2, for: "b"); cache.set(3, for: "c")
        #expect(cache.keysByRecency == ["c", "b", "a"])
        #expect(cache.value(for: "a") == 1)          // a becomes most recent
        #expect(cache.keysByRecency == ["a", "c", "b"])
        cache.set(4, for: "d")                       // evicts b, the least recently used
        #expect(cache.value(for: "b") == nil)
        #expect(cache.keysByRecency == ["d", "a", "c"])
        cache.set(30, for: "c")                      // replace refreshes too
        cache.set(5, for: "e")                       // evicts a
        #expect(cache.keysByRecency == ["e", "c", "d"])
        #expect(cache.value(for: "c") == 30)
        #expect(cache.statistics.evictions(.countLimit) == 2)
        #expect(cache.checkInvariants() == nil)
    }

    @Test func missDoesNotChangeOrder() {
        let cache = MemoryCache<String, Int>()
        cache.set(1, for: "a"); cache.set(2, for: "b")
        #expect(cache.value(for: "zz") == nil)
        #expect(cache.keysByRecency == ["b", "a"])
    }

    @Test func costAccountingOnReplaceAndRemove() {
        let cache = MemoryCache<String, String>(costLimit: 1_000)
        cache.set("x", for: "a", cost: 100)
        cache.set("y", for: "b", cost: 200)
        #expect(cache.totalCost == 300)
        cache.set("x2", for: "a", cost: 50)
        #expect(cache.totalCost == 250)
        #expect(cache.count == 2)
        #expect(cache.removeValue(for: "b") == "y")
        #expect(cache.totalCost == 50)
        #expect(cache.removeValue(for: "b") == nil)
        cache.set("n", for: "neg", cost: -7)         // negative cost counts as 0
        #expect(cache.totalCost == 50)
        let stats = cache.statistics
        #expect(stats.insertions == 3 && stats.replacements == 1 && stats.removals == 1)
        #expect(cache.checkInvariants() == nil)
    }

    @Test func statisticsCountHitsMissesAndRemovals() {
        let cache = MemoryCache<Int, Int>()
        for i in 0..<10 { cache.set(i, for: i) }
        for i in 0..<15 { _ = cache.value(for: i) }
        cache.removeAll()
        let stats = cache.statistics
        #expect(stats.hits == 10 && stats.misses == 5)
        #expect(stats.removals == 10 && stats.count == 0 && stats.totalCost == 0)
        #expect(abs(stats.hitRate - 10.0 / 15.0) < 1e-12)
        #expect(cache.checkInvariants() == nil)
    }

    @Test func slotsAreReusedAfterRemoval() {
        let cache = MemoryCache<Int, Int>(countLimit: 4)
        for i in 0..<1_000 { cache.set(i, for: i, cost: 1) }
        #expect(cache.count == 4)
        #expect(cache.state.withLock { $0.nodes.count } <= 5)
        for i in 996..<1_000 { #expect(cache.removeValue(for: i) == i) }
        #expect(cache.count == 0)
        for i in 0..<4 { cache.set(i, for: i) }
        #expect(cache.state.withLock { $0.nodes.count } <= 5)
        #expect(cache.checkInvariants() == nil)
    }

    /// Random get/set/remove checked against a plain array model of an LRU.
    @Test(arguments: [1, 2, 3])
    func matchesReferenceModel(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let cache = MemoryCache<Int, Int>(costLimit: 500, countLimit: 20)
        var model: [(key: Int, value: Int, cost: Int)] = []   // most recent first
        func enforce() {
            while model.count > 20 || model.reduce(0, { $0 + $1.cost }) > 500 { model.removeLast() }
        }
        for step in 0..<5_000 {
            let key = Int(rng.next() % 40)
            switch rng.next() % 3 {
            case 0:
                let got = cache.value(for: key)
                if let i = model.firstIndex(where: { $0.key == key }) {
                    let entry = model.remove(at: i); model.insert(entry, at: 0)
                    #expect(got == entry.value, "step \(step)")
                } else {
                    #expect(got == nil, "step \(step)")
                }
            case 1:
                let cost = Int(rng.next() % 60)
                cache.set(step, for: key, cost: cost)
                model.removeAll { $0.key == key }
                model.insert((key, step, cost), at: 0)
                enforce()
            default:
                let got = cache.removeValue(for: key)
                let expected = model.first { $0.key == key }?.value
                model.removeAll { $0.key == key }
                #expect(got == expected, "step \(step)")
            }
        }
        #expect(cache.keysByRecency == model.map(\.key))
        #expect(cache.totalCost == model.reduce(0) { $0 + $1.cost })
        #expect(cache.checkInvariants() == nil)
    }
}

