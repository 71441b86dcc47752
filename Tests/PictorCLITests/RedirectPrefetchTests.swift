import Foundation
import Testing
import PictorTestSupport

/// `pictor prefetch` over URLs that answer `302` without cache headers (avatars, short links)
/// to images with `max-age=3600`: the warm run asks each redirect again but downloads nothing,
/// its targets answering from their own entries. Runs the binary: each run is a new process,
/// so the warm run reads the disk cache.
@Suite(.enabled(if: BinaryRunner.isAvailable && FaultServer.isAvailable), .timeLimit(.minutes(5)))
struct RedirectPrefetchTests {
    @Test func aWarmRunOverRedirectingURLsDownloadsNothing() async throws {
        let server = try await offPool { try FaultServer() }
        defer { server.stop() }
        let directory = try makeTemporaryDirectory("redirects")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = UUID().uuidString
        let targets = (0..<5).map { "/cache?cc=max-age%3D3600&pad=20000&k=\(key)-\($0)" }
        let urls = targets.map {
            server.url("/redirect?n=1&k=\(key)&final=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)").absoluteString
        }
        let list = directory.appendingPathComponent("urls.txt")
        try (urls.joined(separator: "\n") + "\n").write(to: list, atomically: true, encoding: .utf8)
        let cache = directory.appendingPathComponent("cache").path
        func run() async throws -> [String: Any] {
            let outcome = try await offPool { try BinaryRunner.runBlocking(["prefetch", list.path, "--cache-dir", cache, "--json"]) }
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let last = try #require(outcome.stdout.split(separator: "\n").last)
            return try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        }
        let cold = try await run()
        #expect((cold["layers"] as? [String: Int])?["network"] == 5, "\(cold)")
        let warm = try await run()
        #expect((warm["layers"] as? [String: Int])?["network"] == 0, "nothing downloaded: \(warm)")
        #expect((warm["layers"] as? [String: Int])?["disk"] == 5, "\(warm)")
        #expect(try server.requests(prefix: "/redirect?").filter { $0.target.contains(key) }.count == 10, "one request per hop and run")
        for target in targets { #expect(try server.requestCount(prefix: target) == 1, "\(target) downloaded once") }
    }
}
