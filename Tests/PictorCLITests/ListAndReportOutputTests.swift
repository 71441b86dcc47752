import Foundation
import Pictor
import Testing
@testable import PictorCLI

/// Output for scripts: `cache list --limit` keeps its table clean, and `--report` and `--json`
/// name a written file alike.
@Suite(.timeLimit(.minutes(5)))
struct ListAndReportOutputTests {
    @Test func listWithALimitKeepsTheMoreLineOffTheTable() async throws {
        let dir = try makeTemporaryDirectory("list-limit")
        defer { try? FileManager.default.removeItem(at: dir) }
        var configuration = DiskCache.Configuration(directory: dir)
        configuration.logger = .disabled
        let cache = try DiskCache(configuration: configuration)
        for i in 0..<3 { cache.store(Data(repeating: UInt8(i), count: 100), for: "https://example.org/\(i).png") }
        cache.flush()
        let (code, console) = await runPictor(["cache", "list", "--limit", "1", "--cache-dir", dir.path])
        #expect(code == 0, "\(console.errors)")
        let lines = console.output.split(separator: "\n")
        #expect(lines.count == 2, "the header and one entry: \(console.output)")
        #expect(lines.allSatisfy { $0.split(separator: "\t").count == 5 }, "\(console.output)")
        #expect(console.errors.contains("… 2 more"), "\(console.errors)")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: corpusPNGSuite.path)))
    func theReportAndTheJSONGiveTheSameOutputPath() async throws {
        let image = corpusPNGSuite.appendingPathComponent("basn2c08.png").path
        let out = try makeTemporaryDirectory("report-path")
        defer { try? FileManager.default.removeItem(at: out) }
        let report = out.appendingPathComponent("report.tsv")
        let thumbs = out.appendingPathComponent("thumbs").path
        let (code, console) = await runPictor(["prefetch", image, "--no-cache", "-q", "--json", "--out", thumbs,
                                               "--name", "{stem}.{ext}", "--report", report.path])
        #expect(code == 0, "\(console.errors)")
        let image0 = try #require(try JSONSerialization.jsonObject(with: Data(console.output.split(separator: "\n")[0].utf8)) as? [String: Any])
        #expect(image0["output"] as? String == thumbs + "/basn2c08.png")
        let row = try String(contentsOf: report, encoding: .utf8).split(separator: "\n")[1].split(separator: "\t", omittingEmptySubsequences: false)
        let header = ReportWriter.header.dropLast().split(separator: "\t")
        let column = try #require(header.firstIndex(of: "output"))
        #expect(String(row[column]) == thumbs + "/basn2c08.png", "\(row)")
    }
}
