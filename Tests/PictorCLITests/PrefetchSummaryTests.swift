import Foundation
import Testing
@testable import PictorCLI
import Pictor

/// What the prefetch summary says about where images came from.
@Suite struct PrefetchSummaryTests {
    func result(_ layer: String, revalidated: Bool = false) -> ImageJob.Result {
        var r = ImageJob.Result(url: URL(string: "https://example.test/\(UUID().uuidString).jpg")!, status: .ok)
        r.layer = layer
        r.revalidated = revalidated
        return r
    }

    /// Each failure reason once, most frequent first, with its URLs beneath it in input
    /// order; never the same failure twice.
    @Test func failuresAreGroupedByReasonWithTheirURLs() {
        func failed(_ index: Int, _ why: String) -> ImageJob.Result {
            ImageJob.Result(url: URL(string: "https://example.test/\(index).jpg")!, status: .failed(why), index: index)
        }
        let results = [failed(3, "HTTP 404"), failed(1, "timed out"), failed(2, "HTTP 404")]
            + (10..<17).map { failed($0, "not an image") } + [result("network")]
        let lines = PrefetchSummary(results: results, elapsed: 1).failureLines
        #expect(lines == [
            "    7 × not an image",
            "        https://example.test/10.jpg", "        https://example.test/11.jpg", "        https://example.test/12.jpg",
            "        https://example.test/13.jpg", "        https://example.test/14.jpg",
            "        … and 2 more",
            "    2 × HTTP 404",
            "        https://example.test/2.jpg", "        https://example.test/3.jpg",
            "    1 × timed out",
            "        https://example.test/1.jpg",
        ])
        let text = PrefetchSummary(results: results, elapsed: 1).text
        #expect(text.components(separatedBy: "HTTP 404").count == 2, "each reason once: \(text)")
    }

    /// Images served from stale bytes while the server was asked are counted, per image and in
    /// the summary; a run without any says nothing of them in its text.
    @Test func imagesServedStaleAreCounted() throws {
        var stale = result("disk")
        stale.servedStale = true
        let summary = PrefetchSummary(results: [stale, result("disk")], elapsed: 1)
        #expect(summary.text.contains("\n  served stale: 1 at once from stale bytes"), "\(summary.text)")
        #expect(!PrefetchSummary(results: [result("disk")], elapsed: 1).text.contains("served stale"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(JSONOutput.line(JSONOutput.SummaryRecord(summary)).utf8)) as? [String: Any])
        #expect(json["served_stale"] as? Int == 1)
        let image = try #require(try JSONSerialization.jsonObject(with: Data(JSONOutput.line(JSONOutput.ImageRecord(stale)).utf8)) as? [String: Any])
        #expect(image["served_stale"] as? Bool == true)
    }

    /// An interrupted run's JSON summary counts the URLs it never started, as its text does.
    @Test func theJSONSummaryCountsURLsNeverStarted() throws {
        let summary = PrefetchSummary(results: [result("network")], elapsed: 1)
        let interrupted = try #require(try JSONSerialization.jsonObject(
            with: Data(JSONOutput.line(JSONOutput.SummaryRecord(summary, interrupted: true, notStarted: 7)).utf8)) as? [String: Any])
        #expect(interrupted["not_started"] as? Int == 7)
        #expect(interrupted["images"] as? Int == 1)
        let whole = try #require(try JSONSerialization.jsonObject(with: Data(JSONOutput.line(JSONOutput.SummaryRecord(summary)).utf8)) as? [String: Any])
        #expect(whole["not_started"] as? Int == 0)
    }

    @Test func revalidatedImagesAreCountedApartFromPlainCacheHits() {
        let summary = PrefetchSummary(results: [result("disk", revalidated: true), result("disk"), result("network")], elapsed: 1)
        #expect(summary.text.contains("revalidated: 1 "), "\(summary.text)")
        #expect(summary.text.contains("disk 2"))
    }

    @Test func entriesStoredAlreadyStaleAreCountedOnceInTextAndJSON() throws {
        var stale = result("network")
        stale.staleOnArrival = true
        var joined = stale
        joined.wasShared = true   // the same download, joined by a second caller: one entry
        var confirmed = result("disk", revalidated: true)
        confirmed.staleOnArrival = true
        let summary = PrefetchSummary(results: [stale, joined, confirmed, result("network")], elapsed: 1)
        #expect(summary.staleOnArrival == 2)
        #expect(summary.text.contains("\n  stale on arrival: 2 stored already stale"), "\(summary.text)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(JSONOutput.line(JSONOutput.SummaryRecord(summary)).utf8)) as? [String: Any])
        #expect(json["stale_on_arrival"] as? Int == 2)
        let image = try #require(try JSONSerialization.jsonObject(with: Data(JSONOutput.line(JSONOutput.ImageRecord(stale)).utf8)) as? [String: Any])
        #expect(image["stale_on_arrival"] as? Bool == true)
    }

    /// The report's `coalesced` column says "as in the JSON output": each image line has it.
    @Test func eachJSONImageLineSaysWhetherItJoinedRunningWork() throws {
        var joined = result("network")
        joined.wasShared = true
        for (r, expected) in [(joined, true), (result("network"), false)] {
            let image = try #require(try JSONSerialization.jsonObject(with: Data(JSONOutput.line(JSONOutput.ImageRecord(r)).utf8)) as? [String: Any])
            #expect(image["coalesced"] as? Bool == expected)
        }
    }

    @Test func theFleetLineAppearsOnlyWithASharedTier() {
        let plain = PrefetchSummary(results: [result("shared")], elapsed: 1)
        #expect(!plain.text.contains("fleet:"))
        var counters = SharedCacheStatistics()
        counters.hits = 3
        counters.errors = 2
        counters.skips = 5
        let fleet = PrefetchSummary(results: [result("shared")], elapsed: 1, fleet: counters)
        #expect(fleet.text.contains("shared 1,"), "\(fleet.text)")
        #expect(fleet.text.contains("fleet:       3 reads (3 found)"), "\(fleet.text)")
        #expect(fleet.text.contains("Redis failed 2 times and was skipped 5 times"), "\(fleet.text)")
    }
}
