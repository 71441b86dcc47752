import Foundation
import PictorCore
import PictorTestSupport
import PictorCrypto
import Testing
@testable import PictorDiskCache

/// A small tmpfs mounted for one test (needs root; tests using it are skipped otherwise).
final class TmpfsMount {
    let directory = TestDirectory()
    var path: String { directory.path }

    /// Whether this process may mount file systems (checked once).
    static let isAvailable: Bool = {
        guard getuid() == 0, let probe = try? TmpfsMount(sizeKiB: 64) else { return false }
        _ = probe
        return true
    }()

    init(sizeKiB: Int) throws {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(sizeKiB)k", "tmpfs", directory.path]) else {
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    /// Remounts read-only (or back to read-write).
    func remount(readOnly: Bool) -> Bool {
        Self.run("/bin/mount", ["-o", "remount,\(readOnly ? "ro" : "rw")", directory.path])
    }

    /// Stacks a read-only bind mount of `subpath` onto itself: new opens through the path get
    /// `EROFS`, while files already open stay writable (so a remount does not fail with EBUSY).
    func makeReadOnly(_ subpath: String) -> Bool {
        let target = path + "/" + subpath
        guard Self.run("/bin/mount", ["--bind", target, target]) else { return false }
        stacked.append(target)
        return Self.run("/bin/mount", ["-o", "remount,ro,bind", target])
    }

    private var stacked: [String] = []

    deinit {
        for target in stacked.reversed() { _ = Self.run("/bin/umount", ["-l", target]) }
        _ = Self.run("/bin/umount", ["-l", directory.path])
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        return LoopbackHTTP.waitForExit(process) == 0
    }
}

@Suite(.serialized, .timeLimit(.minutes(5)))
struct DiskCacheFaultTests {
    let log = LogRecorder()

    @Test func aDirectoryDeletedWhileRunningIsRecreatedOnTheNextWrite() throws {
        let directory = TestDirectory()
        let cache = try DiskCache(configuration: .test(directory, log: log))
        cache.store(Data("before".utf8), for: "a")
        cache.flush()
        // When the whole directory is deleted
        try FileManager.default.removeItem(atPath: directory.path)
        // Then reads miss, and the next write recreates it
        #expect(cache.data(for: "a") == nil)
        cache.store(Data("after".utf8), for: "b")
        cache.flush()
        #expect(FileManager.default.fileExists(atPath: directory.path + "/index.sqlite"))
        #expect(cache.data(for: "b") == Data("after".utf8))
        #expect(cache.count == 1)
        #expect(try DiskCache(configuration: .test(directory)).data(for: "b") == Data("after".utf8))
        #expect(cache.isEnabled)
    }

    @Test func aDeletedDirectoryIsNotRecreatedByAClearOrRemoval() throws {
        let directory = TestDirectory()
        let cache = try DiskCache(configuration: .test(directory, log: log))
        cache.store(Data("x".utf8), for: "a")
        cache.flush()
        try FileManager.default.removeItem(atPath: directory.path)
        cache.removeData(for: "a")
        cache.removeAll()
        cache.flush()
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test(.enabled(if: TmpfsMount.isAvailable, "needs root to mount a tmpfs"))
    func aFullDiskFailsWritesQuietlyAndRecovers() throws {
        // Given a cache on a 1 MiB file system
        let mount = try TmpfsMount(sizeKiB: 1024)
        var c = DiskCache.Configuration(directory: URL(fileURLWithPath: mount.path + "/cache"))
        c.sweepInterval = nil
        c.logger = log.logger
        let cache = try DiskCache(configuration: c)
        // When more is written than fits
        for i in 0..<12 { cache.store(testBytes(200_000, seed: UInt64(i)), for: "k\(i)") }
        cache.flush()
        // Then some writes failed, counted, with a single warning, and nothing partial remains
        let stats = cache.statistics
        #expect(stats.writeFailures > 0)
        #expect(stats.writes + stats.writeFailures == 12)
        #expect(log.warnings.count == 1)
        #expect(cache.isEnabled)
        #expect(try FileManager.default.contentsOfDirectory(atPath: mount.path + "/cache/tmp").isEmpty)
        for i in 0..<12 {
            if let data = cache.data(for: "k\(i)") { #expect(data == testBytes(200_000, seed: UInt64(i))) }
        }
        #expect(cache.verify().corrupt == 0)
        // And after space is freed, writes succeed again
        cache.removeAll()
        cache.store(Data("small".utf8), for: "small")
        cache.flush()
        #expect(cache.data(for: "small") == Data("small".utf8))
    }

    @Test(.enabled(if: TmpfsMount.isAvailable, "needs root to mount a tmpfs"))
    func aDirectoryTurnedReadOnlyStopsWritesWithOneWarningAndKeepsServing() throws {
        let mount = try TmpfsMount(sizeKiB: 4096)
        var c = DiskCache.Configuration(directory: URL(fileURLWithPath: mount.path + "/cache"))
        c.sweepInterval = nil
        c.logger = log.logger
        let cache = try DiskCache(configuration: c)
        cache.store(Data("x".utf8), for: "a")
        cache.flush()
        // When the directory becomes read-only
        #expect(mount.makeReadOnly("cache"))
        for i in 0..<5 { cache.store(Data("y".utf8), for: "b\(i)") }
        cache.flush()
        // Then the cache turns read-only after one warning: writes are no-ops, entries served
        #expect(cache.isEnabled)
        #expect(cache.isReadOnly)
        #expect(log.warnings.count == 1)
        #expect(log.warnings.first?.contains("read-only") == true)
        #expect(cache.data(for: "a") == Data("x".utf8))
        #expect(cache.data(for: "b0") == nil)
        cache.store(Data("z".utf8), for: "c")
        cache.flush()
        #expect(log.warnings.count == 1)
    }

    @Test(.enabled(if: TmpfsMount.isAvailable, "needs root to mount a tmpfs"))
    func openingOnAReadOnlyFileSystemGivesAnEmptyReadOnlyCache() throws {
        let mount = try TmpfsMount(sizeKiB: 1024)
        #expect(mount.remount(readOnly: true))
        defer { _ = mount.remount(readOnly: false) }
        var c = DiskCache.Configuration(directory: URL(fileURLWithPath: mount.path + "/cache"))
        c.logger = log.logger
        let cache = try DiskCache(configuration: c)
        #expect(cache.isReadOnly)
        #expect(log.warnings.count == 1)
        cache.store(Data("x".utf8), for: "a")
        #expect(cache.data(for: "a") == nil)
        #expect(cache.count == 0)
    }
}
