import Foundation
import PictorCore
import PictorTestSupport
import Testing
@testable import PictorCLI
@testable import PictorDiskCache

/// `cache rm` removes an image with what was made from it; `cache pin|unpin` keep an image past
/// the limits; `cache stats` reports what is pinned.
@Suite(.timeLimit(.minutes(5)))
struct CacheRemoveAndPinTests {
    static let a = "https://example.org/a.png"
    static let b = "https://example.org/b.png"

    /// A cache holding `a` and `b` (100 bytes each) and two variants of `a` and one of `b`.
    func seeded() throws -> URL {
        let dir = try makeTemporaryDirectory("rm-pin")
        var configuration = DiskCache.Configuration(directory: dir)
        configuration.logger = .disabled
        let cache = try DiskCache(configuration: configuration)
        cache.store(Data(repeating: 1, count: 100), for: Self.a)
        cache.store(Data(repeating: 2, count: 50), for: Self.a + "|thumb-64", metadata: DataCacheMetadata(), source: Self.a)
        cache.store(Data(repeating: 3, count: 50), for: Self.a + "|encoded:webp:q80", metadata: DataCacheMetadata(), source: Self.a)
        cache.store(Data(repeating: 4, count: 100), for: Self.b)
        cache.store(Data(repeating: 5, count: 50), for: Self.b + "|thumb-64", metadata: DataCacheMetadata(), source: Self.b)
        cache.flush()
        return dir
    }

    func entryCount(_ dir: URL) async -> String {
        let (_, console) = await runPictor(["cache", "stats", "--cache-dir", dir.path])
        return console.output.split(separator: "\n").first { $0.hasPrefix("entries:") }.map(String.init) ?? console.output
    }

    @Test func rmRemovesTheImageAndEveryVariantMadeFromIt() async throws {
        let dir = try seeded()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (code, console) = await runPictor(["cache", "rm", Self.a, "--cache-dir", dir.path])
        #expect(code == 0, "\(console.errors)")
        #expect(console.output == "removed\t\(Self.a)\t+2 variants\n", "\(console.output)")
        #expect(await entryCount(dir) == "entries:     2", "b and its variant stay")
    }

    @Test func rmOriginalOnlyKeepsTheVariants() async throws {
        let dir = try seeded()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (code, console) = await runPictor(["cache", "rm", Self.a, "--original-only", "--cache-dir", dir.path])
        #expect(code == 0, "\(console.errors)")
        #expect(console.output == "removed\t\(Self.a)\n", "\(console.output)")
        #expect(await entryCount(dir) == "entries:     4")
    }

    @Test func pinAndUnpinAndStatsReportThePinnedEntries() async throws {
        let dir = try seeded()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (pin, pinConsole) = await runPictor(["cache", "pin", Self.a, "--cache-dir", dir.path])
        #expect(pin == 0, "\(pinConsole.errors)")
        #expect(pinConsole.output == "pinned\t\(Self.a)\n", "\(pinConsole.output)")
        let (_, stats) = await runPictor(["cache", "stats", "--cache-dir", dir.path])
        #expect(stats.output.contains("pinned:      1 entries, 1"), "\(stats.output)")

        // A trim to nothing keeps the pinned image.
        let (trim, trimConsole) = await runPictor(["cache", "trim", "--size-limit", "1", "--cache-dir", dir.path])
        #expect(trim == 0, "\(trimConsole.errors)")
        #expect(await entryCount(dir) == "entries:     1")

        let (unpin, unpinConsole) = await runPictor(["cache", "unpin", Self.a, "--cache-dir", dir.path])
        #expect(unpin == 0, "\(unpinConsole.errors)")
        #expect(unpinConsole.output == "unpinned\t\(Self.a)\n", "\(unpinConsole.output)")
        let (_, after) = await runPictor(["cache", "stats", "--cache-dir", dir.path])
        #expect(after.output.contains("pinned:      none"), "\(after.output)")
    }

    @Test func pinningAnImageTheCacheDoesNotHoldFails() async throws {
        let dir = try seeded()
        defer { try? FileManager.default.removeItem(at: dir) }
        let absent = "https://example.org/absent.png"
        let (code, console) = await runPictor(["cache", "pin", absent, Self.a, "--cache-dir", dir.path])
        #expect(code == ExitCode.failure)
        #expect(console.output.contains("not cached\t\(absent)"), "\(console.output)")
        #expect(console.output.contains("pinned\t\(Self.a)"), "the others are still pinned: \(console.output)")
        let (noCache, noCacheConsole) = await runPictor(["cache", "pin", Self.a, "--cache-dir", dir.path + "-none"])
        #expect(noCache == ExitCode.cacheUnavailable, "\(noCacheConsole.errors)")
    }
}

/// End to end: thumbnails the pipeline keeps are recorded as made from their original, so
/// `cache rm` takes them with it and the next run downloads the image again.
@Suite(.enabled(if: FaultServer.isAvailable), .timeLimit(.minutes(5)))
struct CacheRemoveAfterPrefetchTests {
    @Test func rmTakesThePipelinesThumbnailsWithTheOriginal() async throws {
        let server = try await offPool { try FaultServer() }
        defer { server.stop() }
        let dir = try makeTemporaryDirectory("rm-e2e")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = server.url("/cache?cc=max-age%3D3600&key=rm-e2e").absoluteString
        let cache = dir.appendingPathComponent("cache").path
        for size in ["16", "32"] {
            let (code, console) = await runPictor(["prefetch", url, "--resize", size, "--cache-dir", cache, "-q"])
            #expect(code == 0, "\(console.errors)")
        }
        let (listed, list) = await runPictor(["cache", "list", "--cache-dir", cache])
        #expect(listed == 0)
        #expect(list.output.split(separator: "\n").count >= 3, "the original and two thumbnails: \(list.output)")

        let (code, console) = await runPictor(["cache", "rm", url, "--cache-dir", cache])
        #expect(code == 0, "\(console.errors)")
        #expect(console.output == "removed\t\(url)\t+2 variants\n", "\(console.output)")
        let (_, stats) = await runPictor(["cache", "stats", "--cache-dir", cache])
        #expect(stats.output.contains("entries:     0"), "\(stats.output)")

        let before = try server.requestCount(prefix: "/cache?")
        let (again, _) = await runPictor(["prefetch", url, "--resize", "16", "--cache-dir", cache, "-q"])
        #expect(again == 0)
        #expect(try server.requestCount(prefix: "/cache?") == before + 1, "downloaded again, not served from a kept thumbnail")
    }
}
