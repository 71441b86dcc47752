import Foundation
import PictorTestSupport
import Testing
@testable import PictorCLI
@testable import PictorDiskCache

/// `--max-age` on `fetch` and `prefetch`: entries unused for longer are never served.
@Suite(.enabled(if: FaultServer.isAvailable), .timeLimit(.minutes(5)))
struct CacheMaxAgeTests {
    @Test(arguments: ["fetch", "prefetch"])
    func anEntryUnusedForLongerThanMaxAgeIsFetchedAgain(_ command: String) async throws {
        let server = try await offPool { try FaultServer() }
        defer { server.stop() }
        let dir = try makeTemporaryDirectory("max-age")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = "/image?k=max-age-\(UUID().uuidString)"
        let url = server.url(path).absoluteString
        let common = ["--cache-dir", dir.path, "--cache-policy", "ignore-headers", "--json"]
        let (cold, coldConsole) = await runPictor([command, url] + common)
        #expect(cold == 0, "\(coldConsole.errors)")
        // Last used 17 minutes ago
        let index = try SQLiteConnection(path: dir.appendingPathComponent("index.sqlite").path)
        try index.execute("UPDATE entries SET accessed = accessed - 1020")
        let (warm, warmConsole) = await runPictor([command, url, "--max-age", "1h"] + common)
        #expect(warm == 0, "\(warmConsole.errors)")
        #expect(warmConsole.output.contains("\"layer\":\"disk\""), "17 minutes is younger than the max age: \(warmConsole.output)")
        try index.execute("UPDATE entries SET accessed = accessed - 1020")
        let (old, oldConsole) = await runPictor([command, url, "--max-age", "1m"] + common)
        #expect(old == 0, "\(oldConsole.errors)")
        #expect(oldConsole.output.contains("\"layer\":\"network\""), "\(oldConsole.output)")
        #expect(try server.requestCount(prefix: path) == 2)
    }

    @Test func hasAndRmRemoveNothingByAge() async throws {
        // `cache has` looks up; it never removes an entry because it is old
        let dir = try makeTemporaryDirectory("has-old")
        defer { try? FileManager.default.removeItem(at: dir) }
        var configuration = DiskCache.Configuration(directory: dir)
        configuration.logger = .disabled
        configuration.now = { Date().timeIntervalSince1970 - 30 * 86_400 }
        let cache = try DiskCache(configuration: configuration)
        cache.store(Data(repeating: 1, count: 100), for: "https://example.org/old.png")
        cache.store(Data(repeating: 2, count: 100), for: "https://example.org/other.png")
        cache.flush()
        let (has, hasConsole) = await runPictor(["cache", "has", "https://example.org/old.png", "--cache-dir", dir.path])
        #expect(has == 0, "\(hasConsole.output)")
        let (rm, _) = await runPictor(["cache", "rm", "https://example.org/old.png", "--cache-dir", dir.path])
        #expect(rm == 0)
        let (stats, statsConsole) = await runPictor(["cache", "stats", "--cache-dir", dir.path])
        #expect(stats == 0)
        #expect(statsConsole.output.contains("entries:     1"), "only the one removed by name went: \(statsConsole.output)")
    }
}
