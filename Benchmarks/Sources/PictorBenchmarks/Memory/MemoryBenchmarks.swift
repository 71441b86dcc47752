import Foundation
import PictorCore
import Synchronization

/// Memory cache (issue 3, targets M1–M5): get-hit, get-miss, set-replace and set-with-eviction
/// at 1k / 100k / 1M entries on 1 and 2 threads, side by side with `Dictionary` + `Mutex` and
/// `NSCache`, plus `ImageCache` on its real key type.
struct MemoryBenchmarks {
    let options: Options
    let report: Report
    var plan: RunPlan { options.quick ? .quick : .full }

    /// Per-thread positions in the key pool, kept across batches.
    final class Cursors: Sendable {
        let first = Atomic<Int>(0), second = Atomic<Int>(0)
        func load(_ t: Int) -> Int { t == 0 ? first.load(ordering: .relaxed) : second.load(ordering: .relaxed) }
        func store(_ t: Int, _ v: Int) {
            if t == 0 { first.store(v, ordering: .relaxed) } else { second.store(v, ordering: .relaxed) }
        }
    }

    func run() {
        let sizes = options.quick ? [1_000, 100_000] : [1_000, 100_000, 1_000_000]
        var hitTimes: [Int: (pictor: Double, dict: Double)] = [:]
        var evictTimes: [Int: (pictor: Double, dict: Double)] = [:]
        for n in sizes where ids(label(n)).contains(where: options.selects) {
            print("memory cache, \(label(n)) entries")
            let (hit, evict) = runSize(n)
            hitTimes[n] = hit
            evictTimes[n] = evict
        }
        flatness(hitTimes, figure: "get-hit", id: "memory.flat.get-hit")
        flatness(evictTimes, figure: "set-with-eviction", id: "memory.flat.set-evict")
    }

    private func flatness(_ times: [Int: (pictor: Double, dict: Double)], figure: String, id: String) {
        guard let small = times[1_000], let largest = times.keys.max(), largest > 1_000,
              let big = times[largest], options.selects(id) else { return }
        let ratio = big.pictor / small.pictor
        report.add(Row(
            id: id, targetID: "M3", figure: "MemoryCache \(figure) time, \(label(largest)) ÷ 1k entries, 1 thread",
            pictor: String(format: "%@ → %@", formatDuration(small.pictor), formatDuration(big.pictor)),
            reference: String(format: "Dictionary+Mutex: %.2f×", big.dict / small.dict),
            ratio: ratio, ratioKind: "scale", goal: .valueAtMost(1.5),
            pictorValue: ratio, referenceValue: big.dict / small.dict))
        // The same growth relative to the reference's own, which is the memory hierarchy's share.
        report.add(Row(
            id: id + ".normalized", targetID: "", figure: "… the same, ÷ the Dictionary+Mutex growth",
            pictor: String(format: "%.2f× ÷ %.2f×", ratio, big.dict / small.dict),
            reference: "Dictionary+Mutex", ratio: ratio / (big.dict / small.dict), ratioKind: "scale",
            goal: .none, pictorValue: ratio / (big.dict / small.dict), referenceValue: 1))
    }

    /// Every identifier a size can produce, so that a filtered run skips the set-up.
    private func ids(_ size: String) -> [String] {
        ["get-hit", "get-miss", "set-replace", "set-evict"].flatMap { kind in
            ["1T", "2T"].flatMap { t in ["vs-dict", "vs-nscache"].map { "memory.\(kind).\(size).\(t).\($0)" } }
        } + ["memory.image-cache.get-hit.\(size).1T.vs-dict"]
    }

    private func label(_ n: Int) -> String { n >= 1_000_000 ? "\(n / 1_000_000)M" : "\(n / 1_000)k" }

    // swiftlint:disable:next function_body_length
    private func runSize(_ n: Int) -> (hit: (Double, Double), evict: (Double, Double)) {
        let mask = (1 << 16) - 1
        var rng = SeededGenerator(seed: UInt64(n))
        let keys = (0..<(2 * n)).map(urlKey)
        let hitIndex = (0...mask).map { _ in Int.random(in: 0..<n, using: &rng) }
        let missIndex = (0...mask).map { _ in Int.random(in: n..<(2 * n), using: &rng) }
        let costs = (0...mask).map { _ in Int.random(in: 1...1_000, using: &rng) }
        let payload = Payload(bytes: 1)

        let cache = MemoryCache<String, Payload>(countLimit: n)
        let dict = LockedDictionary<String, Payload>()
        let ns = FoundationCache(keys: keys)
        ns.cache.countLimit = n
        for i in 0..<n {
            cache.set(payload, for: keys[i], cost: costs[i & mask])
            dict.set(payload, for: keys[i])
            ns.cache.setObject(payload, forKey: ns.keys[i])   // cost 0: O(1) prefill
        }
        let size = label(n)
        var result = (hit: (0.0, 0.0), evict: (0.0, 0.0))

        for threads in [1, 2] {
            let tl = "\(threads)T"
            // get, hit
            let getHit: Batch = { ops in Interleave.parallel(threads: threads, operations: ops) { t, m in
                var c = t &* 7_919, sink = 0
                for _ in 0..<m { if let v = cache.value(for: keys[hitIndex[c & mask]]) { sink &+= v.bytes }; c &+= 1 }
                blackHole(sink)
            } }
            let dictHit: Batch = { ops in Interleave.parallel(threads: threads, operations: ops) { t, m in
                var c = t &* 7_919, sink = 0
                for _ in 0..<m { if let v = dict.value(for: keys[hitIndex[c & mask]]) { sink &+= v.bytes }; c &+= 1 }
                blackHole(sink)
            } }
            let nsHit: Batch = { ops in Interleave.parallel(threads: threads, operations: ops) { t, m in
                var c = t &* 7_919, sink = 0
                for _ in 0..<m { if let v = ns.cache.object(forKey: ns.keys[hitIndex[c & mask]]) { sink &+= v.bytes }; c &+= 1 }
                blackHole(sink)
            } }
            if options.selects("memory.get-hit.\(size).\(tl).vs-dict") || options.selects("memory.get-hit.\(size).\(tl).vs-nscache") {
                let vsDict = Interleave.compare(plan: plan, candidate: getHit, reference: dictHit)
                report.add(.comparison(
                    id: "memory.get-hit.\(size).\(tl).vs-dict", targetID: threads == 1 ? "M1" : "M4",
                    figure: "MemoryCache get, hit, \(size) entries, \(threads) thread\(threads == 1 ? "" : "s")",
                    result: vsDict, referenceName: "Dictionary+Mutex",
                    goal: threads == 1 ? .timeAtMost(2.0) : .timeAtMost(1.25)))
                if threads == 1 { result.hit = (vsDict.candidate.median, vsDict.reference.median) }
                report.add(.comparison(
                    id: "memory.get-hit.\(size).\(tl).vs-nscache", targetID: "M5",
                    figure: "MemoryCache get, hit, \(size) entries, \(threads) thread\(threads == 1 ? "" : "s")",
                    result: Interleave.compare(plan: plan, candidate: getHit, reference: nsHit),
                    referenceName: "NSCache", goal: .speedupAtLeast(4.0)))
            }
            // get, miss
            if options.selects("memory.get-miss.\(size).\(tl).vs-dict") || options.selects("memory.get-miss.\(size).\(tl).vs-nscache") {
                let miss: Batch = { ops in Interleave.parallel(threads: threads, operations: ops) { t, m in
                    var c = t &* 7_919, sink = 0
                    for _ in 0..<m { if cache.value(for: keys[missIndex[c & mask]]) != nil { sink &+= 1 }; c &+= 1 }
                    blackHole(sink)
                } }
                let dictMiss: Batch = { ops in Interleave.parallel(threads: threads, operations: ops) { t, m in
                    var c = t &* 7_919, sink = 0
                    for _ in 0..<m { if dict.value(for: keys[missIndex[c & mask]]) != nil { sink &+= 1 }; c &+= 1 }
                    blackHole(sink)
                } }
                let nsMiss: Batch = { ops in Interleave.parallel(threads: threads, operations: ops) { t, m in
                    var c = t &* 7_919, sink = 0
                    for _ in 0..<m { if ns.cache.object(forKey: ns.keys[missIndex[c & mask]]) != nil { sink &+= 1 }; c &+= 1 }
                    blackHole(sink)
                } }
                report.add(.comparison(
                    id: "memory.get-miss.\(size).\(tl).vs-dict", targetID: threads == 1 ? "M1" : "M4",
                    figure: "MemoryCache get, miss, \(size) entries, \(threads) thread\(threads == 1 ? "" : "s")",
                    result: Interleave.compare(plan: plan, candidate: miss, reference: dictMiss),
                    referenceName: "Dictionary+Mutex", goal: threads == 1 ? .timeAtMost(2.0) : .timeAtMost(1.25)))
                report.add(.comparison(
                    id: "memory.get-miss.\(size).\(tl).vs-nscache", targetID: "",
                    figure: "MemoryCache get, miss, \(size) entries, \(threads) thread\(threads == 1 ? "" : "s")",
                    result: Interleave.compare(plan: plan, candidate: miss, reference: nsMiss),
                    referenceName: "NSCache", goal: .none))
            }
        }
        // set, replacing an entry
        for threads in [1, 2] where options.selects("memory.set-replace.\(size).\(threads)T.vs-dict") {
            let replace: Batch = { ops in Interleave.parallel(threads: threads, operations: ops) { t, m in
                var c = t &* 7_919
                for _ in 0..<m { cache.set(payload, for: keys[hitIndex[c & mask]], cost: costs[c & mask]); c &+= 1 }
            } }
            let dictReplace: Batch = { ops in Interleave.parallel(threads: threads, operations: ops) { t, m in
                var c = t &* 7_919
                for _ in 0..<m { dict.set(payload, for: keys[hitIndex[c & mask]]); c &+= 1 }
            } }
            report.add(.comparison(
                id: "memory.set-replace.\(size).\(threads)T.vs-dict", targetID: threads == 1 ? "M2" : "M4",
                figure: "MemoryCache set replacing an entry, \(size) entries, \(threads) thread\(threads == 1 ? "" : "s")",
                result: Interleave.compare(plan: plan, candidate: replace, reference: dictReplace),
                referenceName: "Dictionary+Mutex set", goal: threads == 1 ? .timeAtMost(2.5) : .timeAtMost(1.25 * 2.5)))
        }
        // set with eviction: every key is new and pushes out the least recently used one
        for threads in [1, 2] where options.selects("memory.set-evict.\(size).\(threads)T.vs-dict")
            || options.selects("memory.set-evict.\(size).\(threads)T.vs-nscache") {
            let pool = 2 * n
            let cc = Cursors(), dc = Cursors(), nc = Cursors()
            let evict: Batch = { ops in Interleave.parallel(threads: threads, operations: ops) { t, m in
                var c = cc.load(t)
                for _ in 0..<m {
                    let i = (n + threads &* c + t) % pool
                    cache.set(payload, for: keys[i], cost: costs[i & mask]); c &+= 1
                }
                cc.store(t, c)
            } }
            let dictEvict: Batch = { ops in Interleave.parallel(threads: threads, operations: ops) { t, m in
                var c = dc.load(t)
                for _ in 0..<m {
                    let i = (n + threads &* c + t) % pool
                    dict.set(payload, for: keys[i], evicting: keys[(i + n) % pool]); c &+= 1
                }
                dc.store(t, c)
            } }
            let nsEvict: Batch = { ops in Interleave.parallel(threads: threads, operations: ops) { t, m in
                var c = nc.load(t)
                for _ in 0..<m {
                    let i = (n + threads &* c + t) % pool
                    ns.cache.setObject(payload, forKey: ns.keys[i], cost: costs[i & mask]); c &+= 1
                }
                nc.store(t, c)
            } }
            let vsDict = Interleave.compare(plan: plan, candidate: evict, reference: dictEvict)
            let figure = "MemoryCache set with LRU eviction, \(size) entries, \(threads) thread\(threads == 1 ? "" : "s")"
            report.add(.comparison(
                id: "memory.set-evict.\(size).\(threads)T.vs-dict", targetID: "M3", figure: figure,
                result: vsDict, referenceName: "Dictionary+Mutex insert+remove", goal: .timeAtMost(4.0)))
            if threads == 1 { result.evict = (vsDict.candidate.median, vsDict.reference.median) }
            report.add(.comparison(
                id: "memory.set-evict.\(size).\(threads)T.vs-nscache", targetID: "M5", figure: figure,
                result: Interleave.compare(plan: plan, limit: 1_000_000, candidate: evict, reference: nsEvict),
                referenceName: "NSCache (random cost)", goal: .speedupAtLeast(4.0)))
        }
        if options.selects("memory.image-cache.get-hit.\(size).1T.vs-dict") { imageCache(n, keys: keys, hitIndex: hitIndex, mask: mask) }
        return result
    }

    /// ``ImageCache`` through its public API on ``ImageCacheKey`` (hash computed once per key)
    /// against a `Dictionary<ImageCacheKey, Image>` behind a `Mutex`.
    private func imageCache(_ n: Int, keys: [String], hitIndex: [Int], mask: Int) {
        let image = Image(width: 8, height: 8, layout: .rgba, pixels: Data(count: 256))
        let imageKeys = keys.prefix(n).map(ImageCacheKey.init)
        let cache = ImageCache(configuration: .init(costLimit: .max, countLimit: n, entryCostLimit: 1))
        let dict = LockedDictionary<ImageCacheKey, Image>()
        for key in imageKeys { cache.storeImage(image, for: key); dict.set(image, for: key) }
        let hit: Batch = { ops in Interleave.parallel(threads: 1, operations: ops) { _, m in
            var c = 0, sink = 0
            for _ in 0..<m { if let v = cache.image(for: imageKeys[hitIndex[c & mask]]) { sink &+= v.width }; c &+= 1 }
            blackHole(sink)
        } }
        let dictHit: Batch = { ops in Interleave.parallel(threads: 1, operations: ops) { _, m in
            var c = 0, sink = 0
            for _ in 0..<m { if let v = dict.value(for: imageKeys[hitIndex[c & mask]]) { sink &+= v.width }; c &+= 1 }
            blackHole(sink)
        } }
        report.add(.comparison(
            id: "memory.image-cache.get-hit.\(label(n)).1T.vs-dict", targetID: "M1",
            figure: "ImageCache.image(for:) hit, ImageCacheKey, \(label(n)) entries, 1 thread",
            result: Interleave.compare(plan: plan, candidate: hit, reference: dictHit),
            referenceName: "Dictionary<ImageCacheKey,Image>+Mutex", goal: .timeAtMost(2.0)))
    }
}
