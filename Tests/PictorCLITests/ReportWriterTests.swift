import Foundation
import Testing
@testable import PictorCLI

/// `prefetch --report`: its columns, and the figures a reader derives from them (the demo's
/// contact sheet reads them).
@Suite struct ReportWriterTests {
    func fields(_ line: String) -> [String: String] {
        let values = line.hasSuffix("\n") ? String(line.dropLast()).components(separatedBy: "\t") : line.components(separatedBy: "\t")
        return Dictionary(uniqueKeysWithValues: zip(ReportWriter.columns, values))
    }

    @Test func newColumnsComeAfterTheOriginalTen() {
        #expect(Array(ReportWriter.columns.prefix(10))
            == ["url", "status", "layer", "width", "height", "bytes", "milliseconds", "output", "output_bytes", "error"])
        #expect(ReportWriter.columns.dropFirst(10) == ["index", "revalidated", "stale_on_arrival", "coalesced", "finished_ms"])
        #expect(ReportWriter.header == ReportWriter.columns.joined(separator: "\t") + "\n")
    }

    @Test func anImageLineCarriesItsPositionFlagsAndFinishTime() {
        var r = ImageJob.Result(url: URL(string: "https://example.test/a.jpg")!, status: .ok, index: 7)
        r.layer = "disk"
        r.width = 256
        r.height = 171
        r.bytes = 4096
        r.seconds = 0.0123
        r.revalidated = true
        r.staleOnArrival = true
        r.wasShared = true
        r.outputPath = "thumbs/a-256x171.jpg"
        r.writtenBytes = 900
        let line = ReportWriter.line(r, finishedAfter: 1.5)
        #expect(line.split(separator: "\t", omittingEmptySubsequences: false).count == ReportWriter.columns.count)
        let f = fields(line)
        #expect(f["url"] == "https://example.test/a.jpg" && f["status"] == "ok" && f["layer"] == "disk")
        #expect(f["milliseconds"] == "12.3" && f["output"] == "thumbs/a-256x171.jpg" && f["error"] == "")
        #expect(f["index"] == "7" && f["revalidated"] == "1" && f["stale_on_arrival"] == "1" && f["coalesced"] == "1")
        #expect(f["finished_ms"] == "1500.0")
    }

    @Test func aFailureKeepsItsReasonOnOneLine() {
        var r = ImageJob.Result(url: URL(string: "https://example.test/b.png")!, status: .failed("HTTP 404\tnot\r\nfound <b>"), index: 2)
        r.wasShared = true   // joined a failing download: not counted as coalesced work
        let line = ReportWriter.line(r, finishedAfter: 0.25)
        #expect(line.unicodeScalars.filter { $0 == "\n" || $0 == "\r" }.count == 1 && line.hasSuffix("\n"))
        let f = fields(line)
        #expect(f["status"] == "failed" && f["layer"] == "-")
        #expect(f["error"] == "HTTP 404 not  found <b>")
        #expect(f["coalesced"] == "0" && f["revalidated"] == "0" && f["finished_ms"] == "250.0")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: corpusPNGSuite.path)))
    func aPrefetchReportGivesInputPositionsAndTheRunsTime() async throws {
        let dir = try makeTemporaryDirectory("report")
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = ["basn2c08.png", "s01n3p01.png", "basn6a08.png"].map { corpusPNGSuite.appendingPathComponent($0).path }
        let report = dir.appendingPathComponent("report.tsv").path
        let (code, console) = await runPictor(["prefetch"] + files + ["file:///nonexistent/missing.png", "--no-cache", "-q", "--report", report])
        #expect(code == 1, "\(console.errors)")
        let lines = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first.map { $0 + "\n" } == ReportWriter.header)
        let rows = lines.dropFirst().map(fields)
        #expect(rows.count == 4)
        #expect(rows.compactMap { $0["index"] }.sorted() == ["1", "2", "3", "4"])
        let byIndex = Dictionary(uniqueKeysWithValues: rows.map { ($0["index"]!, $0) })
        #expect(byIndex["2"]?["url"]?.hasSuffix("/s01n3p01.png") == true && byIndex["2"]?["width"] == "1")
        #expect(byIndex["4"]?["status"] == "failed")
        for row in rows {
            let finished = try #require(Double(row["finished_ms"] ?? ""), "\(row)")
            #expect(finished >= (Double(row["milliseconds"] ?? "") ?? .infinity), "an image ends after it starts: \(row)")
        }
    }
}
