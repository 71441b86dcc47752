import Foundation
import Pictor
import Testing
@testable import PictorCLI

/// The CLI's default disk limit: 10 % of the space the cache may use on its file system (the free
/// space plus what the cache holds), kept within 1 GiB...16 GiB; `--size-limit` wins, and
/// `cache stats` says where the limit came from. The library's 150 MiB made a warm run over
/// 350 MB of originals download every one again.
@Suite struct CacheSizeLimitTests {
    static let gib: Int64 = 1 << 30

    /// (free bytes, bytes the cache holds, limit)
    static let defaults: [(Int64, Int64, Int64)] = [
        (50 * gib, 0, 5 * gib),
        (40 * gib, 10 * gib, 5 * gib),
        (100 * gib + 70, 0, 10 * gib + 7),
        // Below 10 GiB of room, the 1 GiB floor.
        (10 * gib, 0, gib),
        (10 * gib - 10, 0, gib),
        (3 * gib, 0, gib),
        (0, 0, gib),
        (-5, -5, gib),
        // Above 160 GiB, the 16 GiB cap.
        (160 * gib, 0, 16 * gib),
        (160 * gib + 10, 0, 16 * gib),
        (4_000 * gib, 2 * gib, 16 * gib),
        (Int64.max, Int64.max, 16 * gib),
    ]

    @Test(arguments: defaults)
    func theDefaultIsATenthOfTheRoomWithinItsBounds(available: Int64, cached: Int64, limit: Int64) {
        #expect(CacheSizeLimit.defaultLimit(available: available, cached: cached) == limit)
    }

    /// A cache that filled its limit does not lower its own next default: what it holds counts
    /// as room.
    @Test func aFullCacheKeepsItsLimit() {
        let limit = CacheSizeLimit.defaultLimit(available: 60 * Self.gib, cached: 0)
        #expect(CacheSizeLimit.defaultLimit(available: 60 * Self.gib - limit, cached: limit) == limit)
    }

    @Test func anExplicitLimitWins() {
        let limit = CacheSizeLimit.resolve(explicit: 1_000, directory: URL(fileURLWithPath: "/nonexistent/cache"))
        #expect(limit == CacheSizeLimit(bytes: 1_000, source: .option))
        #expect(limit.origin == "--size-limit")
    }

    /// The default asks the file system of the cache directory, or of its nearest existing
    /// ancestor before the cache is created; one that cannot be asked gives the library's 150 MiB.
    @Test func theDefaultComesFromTheFileSystem() throws {
        let root = try makeTemporaryDirectory("size-limit")
        defer { try? FileManager.default.removeItem(at: root) }
        for directory in [root, root.appendingPathComponent("not/created/yet")] {
            let limit = CacheSizeLimit.resolve(explicit: nil, directory: directory)
            guard case .freeSpace(let available, let cached) = limit.source else {
                Issue.record("\(directory.path): \(limit)")
                continue
            }
            #expect(available > 0 && cached == 0)
            #expect(limit.bytes == CacheSizeLimit.defaultLimit(available: available, cached: cached))
            #expect(limit.origin.hasPrefix("the default: 10 % of "), "\(limit.origin)")
        }
        let file = root.appendingPathComponent("a-file")
        try Data().write(to: file)
        let underAFile = CacheSizeLimit.resolve(explicit: nil, directory: file.appendingPathComponent("cache"))
        #expect(underAFile.bytes == 150 << 20)
        #expect(underAFile.origin.hasPrefix("the library's default: the free space could not be read (statvfs "), "\(underAFile.origin)")
    }

    static let bounds: [(Int64, String)] = [
        (20 * gib, "kept within 1 GiB…16 GiB"), (gib, "raised to the 1 GiB floor"), (400 * gib, "capped at 16 GiB"),
    ]

    @Test(arguments: bounds)
    func theOriginSaysWhetherABoundApplied(available: Int64, bound: String) {
        let limit = CacheSizeLimit(
            bytes: CacheSizeLimit.defaultLimit(available: available, cached: 1 << 20), source: .freeSpace(available: available, cached: 1 << 20))
        #expect(limit.origin.hasSuffix("the cache holds), " + bound), "\(limit.origin)")
        #expect(limit.origin.contains("free on the cache's file system + 1.0 MiB the cache holds"), "\(limit.origin)")
    }

    /// A loading command's disk cache gets the default, unless `--size-limit` is given.
    @Test func aRunsCacheHasTheDefaultOrTheOption() throws {
        let root = try makeTemporaryDirectory("size-limit-run")
        defer { try? FileManager.default.removeItem(at: root) }
        let console = RecordingConsole().console
        let byDefault = try PipelineStack(cache: CacheOptions(directory: root, keyFile: nil, disabled: false), console: console)
        let limit = try #require(byDefault.diskCache?.configuration.sizeLimit)
        #expect((Int(Self.gib)...Int(16 * Self.gib)).contains(limit), "\(limit)")
        byDefault.close()
        let given = try PipelineStack(cache: CacheOptions(directory: root, keyFile: nil, disabled: false, sizeLimit: 5 << 20), console: console)
        #expect(given.diskCache?.configuration.sizeLimit == 5 << 20)
        given.close()
    }

    /// `cache stats` shows the limit and where it came from.
    @Test func statsShowsTheLimitAndItsOrigin() async throws {
        let root = try makeTemporaryDirectory("size-limit-stats")
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = root.appendingPathComponent("cache").path
        let disk = try DiskCache(configuration: .init(directory: URL(fileURLWithPath: cache)))
        disk.store(Data(count: 5_000), for: "https://example.org/a.png")
        disk.flush()
        let held = Formatting.bytes(Int64(disk.totalSize))

        let (code, console) = await runPictor(["cache", "stats", "--cache-dir", cache])
        #expect(code == 0, "\(console.errors)")
        let lines = console.output.split(separator: "\n")
        let size = try #require(lines.first { $0.hasPrefix("size:") }, "\(console.output)")
        let origin = try #require(lines.first { $0.hasPrefix("limit from:") }, "\(console.output)")
        #expect(origin.hasPrefix("limit from:  the default: 10 % of "), "\(origin)")
        #expect(origin.contains(" free on the cache's file system + \(held) the cache holds), "), "\(origin)")
        #expect(!size.hasSuffix("of 150.0 MiB limit"), "\(size)")

        let (givenCode, given) = await runPictor(["cache", "stats", "--cache-dir", cache, "--size-limit", "2G"])
        #expect(givenCode == 0, "\(given.errors)")
        #expect(given.output.contains("size:        \(held) of 2.0 GiB limit\nlimit from:  --size-limit\n"), "\(given.output)")
    }
}
