import Foundation
import Testing
import PictorTestSupport

/// The prefetch summary's `stale on arrival:` count, against a server that sends
/// `Cache-Control: max-age=0` (or `no-cache`) with an `ETag`. Runs the binary: each run is a new
/// process, so the warm run reads the disk cache rather than the memory cache an in-process run
/// would share.
@Suite(.enabled(if: BinaryRunner.isAvailable && FaultServer.isAvailable), .timeLimit(.minutes(5)))
struct StaleOnArrivalSummaryTests {
    @Test func entriesStoredAlreadyStaleAreCountedOnTheColdAndTheWarmRun() async throws {
        let server = try await offPool { try FaultServer() }
        defer { server.stop() }
        let cache = try makeTemporaryDirectory("stale")
        defer { try? FileManager.default.removeItem(at: cache) }
        let key = UUID().uuidString
        let urls = [
            server.url("/etag?key=\(key)-0&cc=max-age%3D0&tag=a").absoluteString,         // stale at once
            server.url("/etag?key=\(key)-1&cc=no-cache&tag=b").absoluteString,            // stale at once
            server.url("/etag?key=\(key)-2&cc=max-age%3D3600&tag=c").absoluteString,     // fresh for an hour
        ]
        let cold = try await offPool { try BinaryRunner.runBlocking(["prefetch"] + urls + ["--cache-dir", cache.path, "--json"]) }
        #expect(cold.status == 0, "\(cold.stderr)")
        let lines = try cold.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let summary = try #require(lines.last)
        #expect(summary["stale_on_arrival"] as? Int == 2, "\(summary)")
        let flags = Dictionary(uniqueKeysWithValues: lines.dropLast().map { ($0["url"] as? String ?? "", $0["stale_on_arrival"] as? Bool) })
        #expect(flags[urls[0]] == true && flags[urls[1]] == true && flags[urls[2]] == false, "\(flags)")

        // Warm: the two stale entries are revalidated (304) and stored stale again; the fresh one is a hit.
        let warm = try await offPool { try BinaryRunner.runBlocking(["prefetch"] + urls + ["--cache-dir", cache.path, "-q"]) }
        #expect(warm.status == 0, "\(warm.stderr)")
        #expect(warm.stdout.contains("revalidated: 2 "), "\(warm.stdout)")
        #expect(warm.stdout.contains("stale on arrival: 2 stored already stale"), "\(warm.stdout)")
        #expect(warm.stdout.contains("disk 3"), "\(warm.stdout)")
        #expect(try server.requestCount(prefix: "/etag?key=\(key)-2") == 1, "the fresh entry was served without asking")
    }
}
