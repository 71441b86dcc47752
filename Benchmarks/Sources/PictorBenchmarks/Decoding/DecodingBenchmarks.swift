import Foundation
import PictorCore

/// 256-px thumbnails (targets I2 and I4 against Pillow): Pictor's decoder with
/// `ImageDecodingOptions(thumbnail: 256 × 256, aspect fit)` against Pillow's `thumbnail()` with
/// draft mode in a persistent Python worker, same bytes in memory, one thread each, interleaved.
struct DecodingBenchmarks {
    let options: Options
    let report: Report
    var plan: RunPlan { options.quick ? .quick : .full }

    /// Set name, target id and goal (BRIEF: ≥ 1.0× Pillow at 1024 px JPEG; performance.md I2:
    /// ≥ 0.8× Pillow with draft at 3000 px; PNG and WebP are held to libvips, so informational).
    var sets: [(name: String, target: String, goal: Goal)] {
        var all: [(String, String, Goal)] = [
            ("jpeg1024", "I2", .speedupAtLeast(1.0)), ("jpeg3000", "I2", .speedupAtLeast(0.8)),
            ("png1024", "I4", .none), ("webp1024", "I4", .none),
        ]
        if !options.quick { all += [("png3000", "I4", .none), ("webp3000", "I4", .none)] }
        return all
    }

    func run() {
        let ids = sets.map { "decode.thumbnail256.\($0.name).vs-pillow" }
        guard ids.contains(where: options.selects) else { return }
        print("decoding: 256-px thumbnails vs Pillow")
        func skipAll(_ reason: String) { for id in ids where options.selects(id) { report.skip(id, reason) } }
        guard let decoder = Candidates.decoder() else { return skipAll("Pictor decoder (PictorVips) not on main yet") }
        if let reason = TestImages.prepare(options) { return skipAll(reason) }
        let python = Paths.python(options)
        let script = Paths.benchmarks.appendingPathComponent("scripts/pillow_worker.py").path
        guard let pillow = try? LineProcess(python, [script]) else { return skipAll("cannot start \(python)") }
        defer { pillow.stop() }
        let decodeOptions = ImageDecodingOptions(thumbnail: ThumbnailOptions(width: 256, height: 256))

        for set in sets where options.selects("decode.thumbnail256.\(set.name).vs-pillow") {
            let id = "decode.thumbnail256.\(set.name).vs-pillow"
            let files = TestImages.files(set.name)
            let blobs = files.compactMap { FileManager.default.contents(atPath: $0) }
            guard !blobs.isEmpty, pillow.ask("load \(set.name) " + files.joined(separator: " ")) != nil else {
                report.skip(id, "no images or Pillow worker failed"); continue
            }
            var failures = 0
            let pictorPass: () -> Double = {
                let start = nowNanoseconds()
                for blob in blobs {
                    if let image = try? decoder.decode(blob, options: decodeOptions) { blackHole(image) } else { failures += 1 }
                }
                return Double(nowNanoseconds() - start)
            }
            let pillowPass: () -> Double = { Double(pillow.ask("pass \(set.name)") ?? "") ?? .nan }
            let result = Interleave.comparePasses(plan: plan, items: blobs.count, candidate: pictorPass, reference: pillowPass)
            if failures > 0 { report.note("\(id): \(failures) Pictor decodes failed") }
            report.add(.comparison(
                id: id, targetID: set.target,
                figure: "256-px thumbnail of a \(set.name.dropLast(4).uppercased()) \(set.name.suffix(4)) px image (\(blobs.count) files), 1 thread",
                result: result, referenceName: "Pillow draft+thumbnail()", goal: set.goal, throughput: true))
        }
    }
}
