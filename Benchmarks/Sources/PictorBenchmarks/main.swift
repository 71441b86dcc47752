import Foundation

// PictorBenchmarks: runs each benchmark interleaved with its reference and reports ratios.
// `--quick` always exits 0; a full run exits 0 too (missed targets are reported, not failed).
if BookkeepingBenchmarks.probe(CommandLine.arguments) { exit(0) }
let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
if let json = options.renderPath, let markdown = options.markdownPath {
    do {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let document = try decoder.decode(Report.Document.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        try Report.markdown(document, command: "PictorBenchmarks (rendered from \(json))")
            .write(toFile: markdown, atomically: false, encoding: .utf8)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("PictorBenchmarks: cannot render \(json): \(error)\n".utf8))
        exit(1)
    }
}
let report = Report()
_ = Machine.description   // capture the load average and date before the run
_ = Machine.startDate
let started = nowNanoseconds()

try? FileManager.default.createDirectory(atPath: options.workDirectory, withIntermediateDirectories: true)
MemoryBenchmarks(options: options, report: report).run()
DiskBenchmarks(options: options, report: report).run()
DiskLookupBenchmarks(options: options, report: report).run()
DecodingBenchmarks(options: options, report: report).run()
LibvipsBenchmarks(options: options, report: report).run()
DownloadBenchmarks(options: options, report: report).run()
FleetBenchmarks(options: options, report: report).run()
RedirectBenchmarks(options: options, report: report).run()
PipelineBenchmarks(options: options, report: report).run()
BookkeepingBenchmarks(options: options, report: report).run()
WarmingMemoryBenchmarks(options: options, report: report).run()
EndToEndBenchmarks(options: options, report: report).run()
ServiceBenchmarks(options: options, report: report).run()
try? FileManager.default.removeItem(atPath: options.workDirectory)

let elapsed = Double(nowNanoseconds() - started) / 1e9
report.note(String(format: "Whole run took %.0f s%@.", elapsed, options.quick ? " (quick mode)" : ""))
do {
    if let path = options.jsonPath { try report.writeJSON(to: path, quick: options.quick) }
    if let path = options.markdownPath {
        let command = "PictorBenchmarks " + CommandLine.arguments.dropFirst().joined(separator: " ")
        try report.markdown(quick: options.quick, command: command)
            .write(toFile: path, atomically: false, encoding: .utf8)
    }
} catch {
    FileHandle.standardError.write(Data("PictorBenchmarks: cannot write results: \(error)\n".utf8))
    exit(options.quick ? 0 : 1)
}
let missed = report.rows.filter { $0.met == false }.count
print(String(format: "done in %.0f s: %d figures, %d targets missed, %d skipped",
             elapsed, report.rows.count, missed, report.skipped.count))
