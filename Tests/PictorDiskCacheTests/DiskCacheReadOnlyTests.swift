import Foundation
import PictorCore
import PictorCrypto
import Testing
@testable import PictorDiskCache

/// A cache that cannot be written still serves and reports its entries; only writes stop.
/// Tests run as root, where permissions do not stop writes: read-only is injected through the
/// configuration, and a read-only mount is used where one can be made.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct DiskCacheReadOnlyTests {
    let directory = TestDirectory()
    let log = LogRecorder()

    func fill(_ configuration: DiskCache.Configuration) throws {
        let cache = try DiskCache(configuration: configuration)
        for i in 0..<3 { cache.store(testBytes(300, seed: UInt64(i)), for: "k\(i)", metadata: DataCacheMetadata(format: nil)) }
        cache.flush()
    }

    func readOnly(_ configuration: DiskCache.Configuration) -> DiskCache.Configuration {
        var c = configuration
        c.opensReadOnly = true
        return c
    }

    @Test func aReadOnlyCacheServesListsAndVerifiesItsEntries() throws {
        try fill(.test(directory))
        // (SQLite may add its -wal and -shm files next to an index it reads where it can)
        func files() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.sorted()
        }
        let before = try files()
        let entryBytes = try directory.entryFileNames().sorted().map { try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + $0)) }
        let cache = try DiskCache(configuration: readOnly(.test(directory, log: log)))
        #expect(cache.isEnabled)
        #expect(cache.isReadOnly)
        for i in 0..<3 { #expect(cache.data(for: "k\(i)") == testBytes(300, seed: UInt64(i))) }
        #expect(cache.count == 3)
        #expect(cache.entries().count == 3)
        #expect(cache.verify() == DiskCache.VerificationReport(checked: 3, valid: 3))
        // Writes are dropped, with one warning in all
        cache.store(Data("new".utf8), for: "new")
        cache.removeData(for: "k0")
        cache.removeAll()
        cache.flush()
        #expect(cache.data(for: "new") == nil)
        #expect(cache.data(for: "k0") == testBytes(300, seed: 0))
        #expect(log.warnings.count == 1)
        #expect(log.warnings.first?.contains("read-only") == true)
        #expect(try files() == before)
        #expect(try directory.entryFileNames().sorted().map { try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + $0)) } == entryBytes)
    }

    @Test func aReadOnlyCacheNeverSaysItRemovedAnEntryItKept() throws {
        // Given a read-only cache with an entry file copied under another key's name
        try fill(.test(directory))
        try FileManager.default.copyItem(atPath: directory.path + "/" + SHA256.hexDigest("k0"), toPath: directory.path + "/" + SHA256.hexDigest("k9"))
        let cache = try DiskCache(configuration: readOnly(.test(directory, log: log)))
        // When it is read, then it is a miss, the file is kept, and no message says "removed"
        #expect(cache.data(for: "k9") == nil)
        cache.flush()
        #expect(FileManager.default.fileExists(atPath: directory.path + "/" + SHA256.hexDigest("k9")))
        #expect(!log.messages.contains { $0.1.contains("removed") }, "\(log.messages)")
        #expect(log.messages.contains { $0.1.contains("kept") }, "\(log.messages)")
    }

    @Test func aReadOnlyCacheWithoutItsIndexListsItsFiles() throws {
        try fill(.test(directory))
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory.path + "/index.sqlite" + suffix) }
        let cache = try DiskCache(configuration: readOnly(.test(directory, log: log)))
        #expect(cache.data(for: "k1") == testBytes(300, seed: 1))
        #expect(cache.count == 3)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/index.sqlite"))
    }

    @Test func aReadOnlyEncryptedCacheServesUnderItsKeyAndRefusesAnother() throws {
        try fill(EncryptedFixtures.configuration(directory))
        let cache = try DiskCache(configuration: readOnly(EncryptedFixtures.configuration(directory, log: log)))
        #expect(cache.data(for: "k2") == testBytes(300, seed: 2))
        #expect(throws: DiskCacheError.keyMismatch(path: directory.path, .keyRequired)) {
            try DiskCache(configuration: readOnly(.test(directory)))
        }
    }

    @Test func aBadEntryInAReadOnlyCacheIsAMissAndStaysOnDisk() throws {
        try fill(.test(directory))
        let path = directory.path + "/" + SHA256.hexDigest("k0")
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.prefix(10).write(to: URL(fileURLWithPath: path))
        let cache = try DiskCache(configuration: readOnly(.test(directory, log: log)))
        #expect(cache.data(for: "k0") == nil)
        let report = cache.verify()
        #expect(report.corrupt == 1 && report.valid == 2)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test(.enabled(if: TmpfsMount.isAvailable, "needs root to mount a tmpfs"))
    func aCacheOnAReadOnlyMountIsRead() throws {
        let mount = try TmpfsMount(sizeKiB: 4096)
        var c = DiskCache.Configuration(directory: URL(fileURLWithPath: mount.path + "/cache"))
        c.sweepInterval = nil
        c.logger = log.logger
        do {
            let cache = try DiskCache(configuration: c)
            cache.store(testBytes(300, seed: 1), for: "a")
            cache.flush()
        }
        #expect(mount.remount(readOnly: true))
        defer { _ = mount.remount(readOnly: false) }
        let cache = try DiskCache(configuration: c)
        #expect(cache.isReadOnly)
        #expect(cache.data(for: "a") == testBytes(300, seed: 1))
        #expect(cache.count == 1)
        #expect(cache.verify().valid == 1)
        cache.store(Data("x".utf8), for: "b")
        cache.flush()
        #expect(cache.data(for: "b") == nil)
        #expect(log.warnings.count == 1)
    }

    @Test(.enabled(if: TmpfsMount.isAvailable, "needs root to mount a tmpfs"))
    func aFullDiskStillServesTheEntriesAlreadyThere() throws {
        let mount = try TmpfsMount(sizeKiB: 1024)
        var c = DiskCache.Configuration(directory: URL(fileURLWithPath: mount.path + "/cache"))
        c.sweepInterval = nil
        c.logger = log.logger
        let cache = try DiskCache(configuration: c)
        cache.store(testBytes(100_000, seed: 1), for: "first")
        cache.flush()
        for i in 0..<12 { cache.store(testBytes(200_000, seed: UInt64(i + 10)), for: "k\(i)") }
        cache.flush()
        #expect(cache.statistics.writeFailures > 0)
        #expect(cache.data(for: "first") == testBytes(100_000, seed: 1))
        #expect(!cache.isReadOnly)
    }
}
