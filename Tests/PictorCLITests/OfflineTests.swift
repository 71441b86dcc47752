import Foundation
import PictorTestSupport
import Testing
@testable import PictorCLI

/// `--offline` on `fetch` and `prefetch`: cached entries, fresh or stale, are served and the
/// origin (the fault server, which counts requests) is never asked; a URL with no entry fails
/// as not cached, with exit code 69.
@Suite(.enabled(if: FaultServer.isAvailable), .timeLimit(.minutes(5)))
struct OfflineTests {
    @Test(arguments: ["fetch", "prefetch"])
    func offlineServesStaleEntriesAndNeverTouchesTheNetwork(_ command: String) async throws {
        let server = try await offPool { try FaultServer() }
        defer { server.stop() }
        let dir = try makeTemporaryDirectory("offline")
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = UUID().uuidString
        // Stale the moment it is stored.
        let cachedPath = "/cache?cc=max-age%3D0&k=\(key)"
        let cached = server.url(cachedPath).absoluteString
        let (cold, coldConsole) = await runPictor([command, cached, "--cache-dir", dir.path, "--json"])
        #expect(cold == 0, "\(coldConsole.errors)")
        #expect(try server.requestCount(prefix: cachedPath) == 1)

        let (warm, warmConsole) = await runPictor([command, cached, "--offline", "--cache-dir", dir.path, "--json"])
        #expect(warm == 0, "\(warmConsole.errors)")
        #expect(warmConsole.output.contains("\"layer\":\"disk\""), "\(warmConsole.output)")
        #expect(try server.requestCount(prefix: cachedPath) == 1, "--offline asked the origin")

        let missingPath = "/image?k=\(key)"
        let missing = server.url(missingPath).absoluteString
        let (miss, missConsole) = await runPictor([command, missing, "--offline", "--cache-dir", dir.path])
        #expect(miss == ExitCode.notAvailable)
        #expect((missConsole.errors + missConsole.output).contains("not cached"), "\(missConsole.errors)")
        // One image not cached beside one that failed otherwise (a local file that is not
        // there, read as usual): a failure.
        let (mixed, _) = await runPictor([command, missing, "file:///nonexistent-\(key).png", "--cache-dir", dir.path, "--offline"])
        #expect(mixed == ExitCode.failure)
        #expect(try server.requestCount(prefix: missingPath) == 0)
    }

    /// The built binary: the same through a real process and its exit status.
    @Test(.enabled(if: BinaryRunner.isAvailable))
    func theBinaryExits69ForAnUncachedURLAndAsksNothing() async throws {
        let server = try await offPool { try FaultServer() }
        defer { server.stop() }
        let dir = try makeTemporaryDirectory("offline-binary")
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = UUID().uuidString
        let cachedPath = "/cache?cc=max-age%3D0&k=\(key)"
        let cold = try await BinaryRunner.run(["fetch", server.url(cachedPath).absoluteString, "--cache-dir", dir.path])
        #expect(cold.status == 0, "\(cold.stderr)")
        let warm = try await BinaryRunner.run(["fetch", server.url(cachedPath).absoluteString, "--offline", "--cache-dir", dir.path])
        #expect(warm.status == 0, "\(warm.stderr)")
        #expect(warm.stdout.contains("  disk  "), "\(warm.stdout)")
        let miss = try await BinaryRunner.run(["fetch", server.url("/image?k=\(key)").absoluteString, "--offline", "--cache-dir", dir.path])
        #expect(miss.status == 69)
        #expect(miss.stderr.contains("not cached (--offline"), "\(miss.stderr)")
        #expect(try server.requestCount(prefix: cachedPath) == 1)
        #expect(try server.requestCount(prefix: "/image?k=\(key)") == 0)
    }

    @Test func offlineIsDeclaredForFetchAndPrefetchOnly() {
        #expect(CLICommandOptions.fetch.options.contains { $0.names == ["--offline"] })
        #expect(CLICommandOptions.prefetch.options.contains { $0.names == ["--offline"] })
        #expect(!CLICommandOptions.serve.options.contains { $0.names == ["--offline"] })
    }
}
