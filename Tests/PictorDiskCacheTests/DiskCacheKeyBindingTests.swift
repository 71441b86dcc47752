import Foundation
import PictorCore
import PictorCrypto
import Testing
@testable import PictorDiskCache

/// Every entry is served only for the key it was stored under, whatever happens to its file.
@Suite(.timeLimit(.minutes(5)))
struct DiskCacheKeyBindingTests {
    let directory = TestDirectory()
    let log = LogRecorder()
    static let a = "https://example.org/a.jpg"
    static let b = "https://example.org/b.jpg"

    func path(_ key: String) -> String { directory.path + "/" + SHA256.hexDigest(key) }

    /// Swaps two entry files on disk, as a tool renaming them behind the cache's back would.
    func swapFiles(_ first: String, _ second: String) {
        #expect(rename(first, first + ".swap") == 0)
        #expect(rename(second, first) == 0)
        #expect(rename(first + ".swap", second) == 0)
    }

    @Test func swappedPlainEntryFilesAreNeverServedForTheOtherKey() throws {
        // Given two plain entries whose files were swapped on disk (a tool renamed them)
        let cache = try DiskCache(configuration: .test(directory, log: log))
        cache.store(testBytes(1000, seed: 1), for: Self.a)
        cache.store(testBytes(1000, seed: 2), for: Self.b)
        cache.flush()
        swapFiles(path(Self.a), path(Self.b))
        // When each key is read, then neither is served the other's bytes
        #expect(cache.data(for: Self.a) == nil)
        #expect(cache.data(for: Self.b) == nil)
        cache.flush()
        // And both files are removed and counted, so the pipeline downloads them again
        #expect(cache.statistics.corruptEntriesRemoved == 2)
        #expect(directory.entryFileNames().isEmpty)
        #expect(cache.count == 0)
    }

    @Test func aCopiedEntryFileIsNotServedUnderAnotherName() throws {
        let cache = try DiskCache(configuration: .test(directory, log: log))
        cache.store(testBytes(1000, seed: 1), for: Self.a)
        cache.flush()
        try FileManager.default.copyItem(atPath: path(Self.a), toPath: path(Self.b))
        #expect(cache.data(for: Self.b) == nil)
        #expect(cache.data(for: Self.a) == testBytes(1000, seed: 1))
    }

    @Test func aFileRestoredFromAnotherCacheIsNotServedUnderAnotherName() throws {
        // Given an entry file of another directory copied in under the wrong name
        let other = TestDirectory()
        do {
            let cache = try DiskCache(configuration: .test(other))
            cache.store(testBytes(700, seed: 9), for: Self.a)
            cache.flush()
        }
        let cache = try DiskCache(configuration: .test(directory, log: log))
        cache.store(testBytes(700, seed: 3), for: Self.b)
        cache.flush()
        try FileManager.default.removeItem(atPath: path(Self.b))
        try FileManager.default.copyItem(atPath: other.path + "/" + SHA256.hexDigest(Self.a), toPath: path(Self.b))
        #expect(cache.data(for: Self.b) == nil)
    }

    /// A key hashing that names every key alike (a faulty custom hasher).
    struct CollidingHashing: CacheKeyHashing {
        func digest(for key: String) -> String { "abc" }
    }

    @Test func keysThatShareAFileNameNeverShareAnEntry() throws {
        var configuration = DiskCache.Configuration.test(directory, log: log)
        configuration.keyHashing = CollidingHashing()
        let cache = try DiskCache(configuration: configuration)
        cache.store(testBytes(100, seed: 1), for: Self.a)
        // Neither while staged nor once written
        #expect(cache.data(for: Self.b) == nil)
        cache.flush()
        #expect(cache.data(for: Self.b) == nil)
    }

    @Test func anEntryWrittenBeforeKeyBindingIsAMissAndRemoved() throws {
        // Given an entry file in the previous container layout (no key digest)
        let cache = try DiskCache(configuration: .test(directory, log: log))
        cache.store(testBytes(500, seed: 1), for: Self.a)
        cache.flush()
        let old = testBytes(500, seed: 1) + EntryContainer.trailer(payloadCount: 500, metadata: DataCacheMetadata(), created: 0, binding: nil)
        try old.write(to: URL(fileURLWithPath: path(Self.a)))
        // Then it is not served, it is removed and counted, and a new store serves again
        #expect(cache.data(for: Self.a) == nil)
        cache.flush()
        #expect(!FileManager.default.fileExists(atPath: path(Self.a)))
        #expect(cache.statistics.corruptEntriesRemoved == 1)
        cache.store(testBytes(500, seed: 2), for: Self.a)
        cache.flush()
        #expect(cache.data(for: Self.a) == testBytes(500, seed: 2))
    }

    @Test func verifyRemovesEntriesWithoutAKeyDigest() throws {
        let cache = try DiskCache(configuration: .test(directory, log: log))
        cache.store(testBytes(500, seed: 1), for: Self.a)
        cache.store(testBytes(500, seed: 2), for: Self.b)
        cache.flush()
        let old = testBytes(500, seed: 1) + EntryContainer.trailer(payloadCount: 500, metadata: DataCacheMetadata(), created: 0, binding: nil)
        try old.write(to: URL(fileURLWithPath: path(Self.a)))
        let report = cache.verify()
        #expect(report.corrupt == 1)
        #expect(report.valid == 1)
        #expect(cache.data(for: Self.b) == testBytes(500, seed: 2))
    }

    @Test func verifyRemovesSwappedPlainEntriesOfTheSameSize() throws {
        // Given two plain entries of the same size whose files were swapped, index untouched
        let cache = try DiskCache(configuration: .test(directory, log: log))
        cache.store(testBytes(1000, seed: 1), for: Self.a)
        cache.store(testBytes(1000, seed: 2), for: Self.b)
        cache.store(testBytes(1000, seed: 3), for: "https://example.org/c.jpg")
        cache.flush()
        swapFiles(path(Self.a), path(Self.b))
        // When verified, then both are found bad and removed; the untouched one stays
        let report = cache.verify()
        #expect(report.checked == 3)
        #expect(report.valid == 1)
        #expect(report.corrupt == 2)
        #expect(Set(report.corruptDigests) == [SHA256.hexDigest(Self.a), SHA256.hexDigest(Self.b)])
        #expect(directory.entryFileNames() == [SHA256.hexDigest("https://example.org/c.jpg")])
    }

    @Test func verifyRemovesSwappedPlainEntriesAfterTheIndexIsRebuilt() throws {
        // Given swapped plain entries of different sizes and a lost index (rebuilt from files)
        do {
            let cache = try DiskCache(configuration: .test(directory))
            cache.store(testBytes(1000, seed: 1), for: Self.a)
            cache.store(testBytes(2000, seed: 2), for: Self.b)
            cache.flush()
        }
        swapFiles(path(Self.a), path(Self.b))
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory.path + "/index.sqlite" + suffix) }
        let cache = try DiskCache(configuration: .test(directory, log: log))
        // Then verify finds both
        let report = cache.verify()
        #expect(report.corrupt == 2, "\(report)")
        #expect(report.valid == 0)
        #expect(directory.entryFileNames().isEmpty)
    }

    @Test func containsIsFalseForAnEntryStoredUnderAnotherKey() throws {
        let cache = try DiskCache(configuration: .test(directory, log: log))
        cache.store(testBytes(1000, seed: 1), for: Self.a)
        cache.flush()
        try FileManager.default.copyItem(atPath: path(Self.a), toPath: path(Self.b))
        #expect(cache.contains(Self.a))
        #expect(!cache.contains(Self.b))
        #expect(!cache.contains("https://example.org/never-stored.jpg"))
    }

    @Test func containsIsFalseForASwappedEncryptedEntry() throws {
        var configuration = DiskCache.Configuration.test(directory, log: log)
        configuration.encrypt(with: EncryptedFixtures.encryption)
        let cache = try DiskCache(configuration: configuration)
        cache.store(testBytes(1000, seed: 1), for: Self.a)
        cache.flush()
        let names = EncryptedFixtures.encryption.keyHashing
        try FileManager.default.copyItem(atPath: directory.path + "/" + names.digest(for: Self.a), toPath: directory.path + "/" + names.digest(for: Self.b))
        #expect(cache.contains(Self.a))
        #expect(!cache.contains(Self.b))
    }

    @Test func aMetadataUpdateKeepsTheBinding() throws {
        let cache = try DiskCache(configuration: .test(directory, log: log))
        cache.store(testBytes(500, seed: 1), for: Self.a)
        cache.flush()
        cache.updateMetadata(DataCacheMetadata(etag: "\"v2\""), for: Self.a)
        cache.flush()
        let reopened = try DiskCache(configuration: .test(directory, log: log))
        #expect(reopened.entry(for: Self.a)?.metadata.etag == "\"v2\"")
        #expect(reopened.entry(for: Self.a)?.data == testBytes(500, seed: 1))
    }

    @Test func swappedEncryptedEntryFilesAreNeverServedForTheOtherKey() throws {
        var configuration = DiskCache.Configuration.test(directory, log: log)
        configuration.encrypt(with: EncryptedFixtures.encryption)
        let cache = try DiskCache(configuration: configuration)
        cache.store(testBytes(1000, seed: 1), for: Self.a)
        cache.store(testBytes(1000, seed: 2), for: Self.b)
        cache.flush()
        let names = EncryptedFixtures.encryption.keyHashing
        let pa = directory.path + "/" + names.digest(for: Self.a), pb = directory.path + "/" + names.digest(for: Self.b)
        swapFiles(pa, pb)
        #expect(cache.data(for: Self.a) == nil)
        #expect(cache.data(for: Self.b) == nil)
    }
}
