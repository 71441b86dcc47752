import CBenchReference
import Foundation
import Pictor
import PictorCore

/// N4: RSS growth over a long run of pipeline requests after a warm-up, served from memory and
/// from disk (memory-cache reads and writes turned off per request, so every request reads the
/// disk cache and decodes). Growth is the resident set after the run minus before it, both taken
/// after returning freed heap to the system (`malloc_trim`).
struct MemoryStability {
    let options: Options
    let report: Report

    static let ids = ["pipeline.rss-growth.memory-hits", "pipeline.rss-growth.disk-hits"]

    /// Requests per measured run: 10,000 (2,000 in quick mode); the warm-up is 1,000 (400).
    var requests: Int { options.quick ? 2_000 : 10_000 }
    var warmup: Int { options.quick ? 400 : 1_000 }

    /// `pipeline` must already hold every URL of `urls` in its memory and disk caches.
    func run(_ pipeline: ImagePipeline, urls: [URL]) {
        let memoryRequests = urls.map(PipelineBenchmarks.request)
        let diskRequests = urls.map {
            ImageRequest(url: $0, thumbnail: ThumbnailOptions(width: 256, height: 256),
                         options: [.disableMemoryCacheReads, .disableMemoryCacheWrites])
        }
        let phases = [(Self.ids[0], "memory hits", memoryRequests),
                      (Self.ids[1], "disk hits (disk read + decode)", diskRequests)]
        for (id, label, base) in phases where options.selects(id) {
            let cycle = { (count: Int) in (0..<count).map { base[$0 % base.count] } }
            let warmFailures = PipelineBenchmarks.prefetch(pipeline, cycle(warmup), concurrency: 8)
            cbench_malloc_trim()
            let before = currentRSSBytes()
            let failures = PipelineBenchmarks.prefetch(pipeline, cycle(requests), concurrency: 8)
            cbench_malloc_trim()
            let after = currentRSSBytes()
            if warmFailures + failures > 0 { report.note("\(id): \(warmFailures + failures) requests failed") }
            let growth = Double(after - before) / 1e6
            report.add(Row(
                id: id, targetID: "N4",
                figure: "RSS growth over \(requests) pipeline requests (\(base.count) URLs cycled, 8 at a time) after \(warmup) warm-up, \(label)",
                pictor: String(format: "%+.1f MB (%.0f MB → %.0f MB)", growth, Double(before) / 1e6, Double(after) / 1e6),
                reference: "—", ratio: growth, ratioKind: "MB", goal: .valueAtMost(10),
                pictorValue: growth, referenceValue: nil))
        }
    }
}

/// Current resident set size of this process in bytes (`VmRSS`).
func currentRSSBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
    }
    return 0
}
