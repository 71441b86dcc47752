import Foundation
import PictorCore
import PictorDiskCache

/// Disk cache at scale (issue 4; BRIEF "disk cache of 1,000,000 entries"): open time, lookup and
/// insert with N entries, each compared interleaved with the same cache type holding 1,000.
/// Entries are 64 bytes, so that a million fit quickly; the per-entry file cost is the same.
struct DiskScaleBenchmarks {
    let options: Options
    let report: Report
    var plan: RunPlan { options.quick ? .quick : .full }

    static func label(_ n: Int) -> String { n >= 1_000_000 ? "\(n / 1_000_000)M" : "\(n / 1_000)k" }

    var sizes: [Int] {
        if options.quick { return [10_000] }
        return ProcessInfo.processInfo.environment["PICTOR_BENCH_DISK_1M"] == "0" ? [100_000] : [100_000, 1_000_000]
    }

    func run() {
        let ids = sizes.flatMap { n in ["open", "lookup", "insert"].map { "disk.scale.\($0).\(Self.label(n))" } }
        guard ids.contains(where: options.selects) else { return }
        do {
            let fixtures = try DiskFixtures(options: options)
            let payload = DiskFixtures.payload(64, seed: 64)
            print("disk cache scale: populating 1k entries")
            let smallDir = try fixtures.directory("scale-1k")
            _ = try populate(smallDir, count: 1_000, payload: payload)
            let small = try DiskFixtures.openCache(smallDir, encrypted: nil)
            for n in sizes where ["open", "lookup", "insert"].contains(where: { options.selects("disk.scale.\($0).\(Self.label(n))") }) {
                print("disk cache scale: populating \(Self.label(n)) entries")
                let dir = try fixtures.directory("scale-\(Self.label(n))")
                let perEntry = try populate(dir, count: n, payload: payload)
                report.note("Populating \(Self.label(n)) disk-cache entries of 64 bytes took \(formatDuration(perEntry)) per entry (store + flush).")
                compare(n: n, dir: dir, small: small, smallDir: smallDir, payload: payload)
                try? FileManager.default.removeItem(at: dir)
            }
        } catch {
            for id in ids where options.selects(id) { report.skip(id, "set-up failed: \(error)") }
        }
    }

    /// Stores `count` entries and flushes; returns ns per entry.
    private func populate(_ dir: URL, count: Int, payload: Data) throws -> Double {
        let cache = try DiskFixtures.openCache(dir, encrypted: nil)
        let start = nowNanoseconds()
        for i in 0..<count {
            cache.store(payload, for: DiskFixtures.key(i))
            if i % 10_000 == 9_999 { cache.flush() }
        }
        cache.flush()
        return Double(nowNanoseconds() - start) / Double(count)
    }

    private func compare(n: Int, dir: URL, small: DiskCache, smallDir: URL, payload: Data) {
        let size = Self.label(n)
        if options.selects("disk.scale.open.\(size)") {
            var opens: [Double] = [], smallOpens: [Double] = []
            for _ in 0..<(options.quick ? 3 : 5) {
                let start = nowNanoseconds()
                if let cache = try? DiskFixtures.openCache(dir, encrypted: nil) { blackHole(cache) }
                opens.append(Double(nowNanoseconds() - start))
                let s = nowNanoseconds()
                if let cache = try? DiskFixtures.openCache(smallDir, encrypted: nil) { blackHole(cache) }
                smallOpens.append(Double(nowNanoseconds() - s))
            }
            let o = Summary(opens), so = Summary(smallOpens)
            report.add(Row(
                id: "disk.scale.open.\(size)", targetID: "D7",
                figure: "DiskCache open with \(size) entries (ms)",
                pictor: "\(formatDuration(o.median)) (\(formatDuration(o.min))–\(formatDuration(o.max)))",
                reference: "same with 1k entries: \(formatDuration(so.median))",
                ratio: o.median / 1e6, ratioKind: "ms", goal: .valueAtMost(100),
                pictorValue: o.median, referenceValue: so.median))
        }
        guard let cache = try? DiskFixtures.openCache(dir, encrypted: nil) else { return }
        var rng = SeededGenerator(seed: UInt64(n))
        let bigKeys = (0..<4_096).map { _ in DiskFixtures.key(Int.random(in: 0..<n, using: &rng)) }
        let smallKeys = (0..<4_096).map { _ in DiskFixtures.key(Int.random(in: 0..<1_000, using: &rng)) }
        if options.selects("disk.scale.lookup.\(size)") {
            var a = 0, b = 0
            let lookupBig: Batch = { ops in
                let start = nowNanoseconds()
                for _ in 0..<ops { blackHole(cache.data(for: bigKeys[a & 4_095])); a &+= 1 }
                return Double(nowNanoseconds() - start)
            }
            let lookupSmall: Batch = { ops in
                let start = nowNanoseconds()
                for _ in 0..<ops { blackHole(small.data(for: smallKeys[b & 4_095])); b &+= 1 }
                return Double(nowNanoseconds() - start)
            }
            report.add(.comparison(
                id: "disk.scale.lookup.\(size)", targetID: "D-scale",
                figure: "DiskCache hit lookup (64-byte entry) with \(size) entries",
                result: Interleave.compare(plan: plan, candidate: lookupBig, reference: lookupSmall),
                referenceName: "same with 1k entries", goal: .timeAtMost(1.5)))
        }
        if options.selects("disk.scale.insert.\(size)") {
            var a = n, b = 1_000
            let insertBig: Batch = { ops in
                let start = nowNanoseconds()
                for _ in 0..<ops { cache.store(payload, for: DiskFixtures.key(a)); a &+= 1 }
                cache.flush()
                return Double(nowNanoseconds() - start)
            }
            let insertSmall: Batch = { ops in
                let start = nowNanoseconds()
                for _ in 0..<ops { small.store(payload, for: DiskFixtures.key(b)); b &+= 1 }
                small.flush()
                return Double(nowNanoseconds() - start)
            }
            report.add(.comparison(
                id: "disk.scale.insert.\(size)", targetID: "D-scale",
                figure: "DiskCache insert of a new 64-byte entry with \(size) entries (incl. flush)",
                result: Interleave.compare(plan: plan, limit: 2_000, candidate: insertBig, reference: insertSmall),
                referenceName: "same with 1k entries", goal: .timeAtMost(1.5)))
        }
    }
}
