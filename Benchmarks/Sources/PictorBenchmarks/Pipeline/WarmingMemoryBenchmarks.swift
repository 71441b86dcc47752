import Foundation

/// Cache warming's memory (target W1): the whole CLI, `pictor prefetch` of 120 distinct
/// 3000×2000 JPEGs from nginx into an empty disk cache, full size (no `--resize`), 8 at a time;
/// then the same list again, warm from that cache. The figure is the process's peak RSS (GNU
/// `time`), which must stay flat in the number of images: a run keeps no decoded image it will
/// not serve again. The goal is absolute (≤ 400 MiB; each decoded image is 24 MB, so the list
/// decoded at once would be 2.9 GB); the end-to-end peers' rows compare with other tools.
struct WarmingMemoryBenchmarks {
    let options: Options
    let report: Report
    static let id = "cli.prefetch120.fullsize.rss"
    static let count = 120
    static let concurrency = 8
    /// Peak RSS goal, MiB.
    static let goal = 400.0

    func run() {
        guard options.selects(Self.id) else { return }
        guard let pictor = options.pictorBinary else {
            return report.skip(Self.id, "the pictor binary was not given (scripts/bench.sh passes --pictor)")
        }
        guard MeasuredRun.gnuTime != nil else { return report.skip(Self.id, "GNU time not installed (peak RSS)") }
        let count = options.quick ? 40 : Self.count
        print("warming memory: pictor prefetch of \(count) full-size 3000×2000 JPEGs")
        do {
            let site = try ImageSite(options: options, count: count, set: "jpeg3000")
            defer { site.stop() }
            let work = URL(fileURLWithPath: options.workDirectory).appendingPathComponent("warming-\(count)")
            try? FileManager.default.removeItem(at: work)
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            let list = work.appendingPathComponent("urls.txt")
            try site.urls.map(\.absoluteString).joined(separator: "\n").write(to: list, atomically: false, encoding: .utf8)
            let pairs = options.quick ? 1 : 3
            var cold: [MeasuredRun] = [], warm: [MeasuredRun] = []
            for round in 0..<pairs {
                let cache = work.appendingPathComponent("cache-\(round)").path
                let arguments = ["prefetch", list.path, "--cache-dir", cache, "--concurrency", "\(Self.concurrency)", "--size-limit", "4GiB", "-q"]
                cold.append(try MeasuredRun.run(pictor, arguments))
                warm.append(try MeasuredRun.run(pictor, arguments))
                try? FileManager.default.removeItem(atPath: cache)
            }
            if let failed = (cold + warm).first(where: { $0.status != 0 }) { throw BenchError("pictor prefetch exited \(failed.status)") }
            for (runs, label) in [(cold, "cold (network → disk → decode)"), (warm, "warm (disk → decode)")] {
                let peak = Summary(runs.map { $0.peakRSSBytes / 1_048_576 })
                let perImage = Summary(runs.map { $0.cpuNanoseconds / Double(count) / 1e6 })
                report.add(Row(id: Self.id + (label.hasPrefix("cold") ? ".cold" : ".warm"), targetID: "W1",
                               figure: "`pictor prefetch` of \(count) distinct 3000×2000 JPEGs at full size (no --resize), \(Self.concurrency) at a time, \(label): peak RSS of the process",
                               pictor: String(format: "%.0f MiB (%.1f ms CPU/img)", peak.median, perImage.median),
                               reference: "—", ratio: peak.median, ratioKind: "MiB", goal: .valueAtMost(Self.goal),
                               pictorValue: peak.median, referenceValue: nil))
            }
        } catch {
            report.skip(Self.id, "set-up failed: \(error)")
        }
    }
}
