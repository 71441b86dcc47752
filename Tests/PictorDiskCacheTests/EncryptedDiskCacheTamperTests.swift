import Foundation
import Testing
import PictorCore
import PictorCrypto
@testable import PictorDiskCache

/// Tampered, truncated, swapped and wrong-key entries: each read is a miss, the entry is
/// removed and counted, and no byte of it is returned.
@Suite struct EncryptedDiskCacheTamperTests {
    let directory = TestDirectory()
    let urls = EncryptedFixtures.urls
    let encryption = EncryptedFixtures.encryption

    func path(_ url: String) -> String { directory.path + "/" + encryption.keyHashing.digest(for: url) }

    /// A cache holding `urls` on disk (flushed), each entry `size` bytes.
    func filledCache(size: Int = 4096) throws -> DiskCache {
        let cache = try DiskCache(configuration: EncryptedFixtures.configuration(directory))
        for (i, url) in urls.enumerated() { cache.store(testBytes(size, seed: UInt64(i) + 1), for: url) }
        cache.flush()
        return cache
    }

    func expectRemoved(_ cache: DiskCache, _ url: String, removedSoFar: Int) {
        #expect(cache.data(for: url) == nil)
        cache.flush()
        #expect(cache.statistics.corruptEntriesRemoved == removedSoFar)
        #expect(!FileManager.default.fileExists(atPath: path(url)), "the bad file is deleted")
        #expect(!cache.contains(url), "and its index row")
    }

    func rewrite(_ url: String, _ change: (inout Data) -> Void) throws {
        var bytes = try #require(FileManager.default.contents(atPath: path(url)))
        change(&bytes)
        try bytes.write(to: URL(fileURLWithPath: path(url)))
    }

    @Test(arguments: [0, 4, 9, 20, 100, 4096 + 40])
    func flippedByte(at offset: Int) throws {
        let cache = try filledCache()
        try rewrite(urls[0]) { $0[offset] ^= 0x20 }
        expectRemoved(cache, urls[0], removedSoFar: 1)
        #expect(cache.data(for: urls[1]) == testBytes(4096, seed: 2), "other entries are untouched")
    }

    @Test(arguments: [0, 10, 41, 2048, 4096 + 40])
    func truncated(to length: Int) throws {
        let cache = try filledCache()
        try rewrite(urls[0]) { $0 = $0.prefix(length) }
        expectRemoved(cache, urls[0], removedSoFar: 1)
    }

    @Test func swappedEntries() throws {
        let cache = try filledCache()
        let (a, b) = (path(urls[0]), path(urls[1]))
        let tmp = a + ".swap"
        #expect(rename(a, tmp) == 0 && rename(b, a) == 0 && rename(tmp, b) == 0)
        expectRemoved(cache, urls[0], removedSoFar: 1)
        expectRemoved(cache, urls[1], removedSoFar: 2)
        #expect(cache.data(for: urls[2]) != nil)
    }

    @Test func entryCopiedOverAnotherName() throws {
        // Same size, both valid envelopes under the right key: only the name binding catches it.
        let cache = try filledCache()
        try FileManager.default.removeItem(atPath: path(urls[1]))
        try FileManager.default.copyItem(atPath: path(urls[0]), toPath: path(urls[1]))
        expectRemoved(cache, urls[1], removedSoFar: 1)
        #expect(cache.data(for: urls[0]) == testBytes(4096, seed: 1))
    }

    @Test func entriesSealedUnderAnotherContentKeyWithTheSameNames() throws {
        // Opening with another key is refused (DiskCacheKeyCheckTests); files sealed under
        // another key that appear in an open cache are still misses, removed and counted.
        let cache = try filledCache()
        let foreign = try AESGCMCipher(key: EncryptionKey.generate())
        for url in urls {
            let digest = encryption.keyHashing.digest(for: url)
            let plain = testBytes(4096) + EntryContainer.trailer(payloadCount: 4096, metadata: DataCacheMetadata(), created: 0, binding: KeyBinding(key: ""))
            try foreign.seal(plain, associatedData: Data(digest.utf8)).write(to: URL(fileURLWithPath: path(url)))
        }
        for (i, url) in urls.enumerated() {
            #expect(cache.data(for: url) == nil)
            cache.flush()
            #expect(cache.statistics.corruptEntriesRemoved == i + 1)
            #expect(!FileManager.default.fileExists(atPath: path(url)))
        }
    }

    @Test func wrongMasterKeyIsRefusedAndRemovesNothing() throws {
        do { _ = try filledCache() }
        let before = directory.entryFileNames()
        let other = try DiskCacheEncryption(masterKey: EncryptionKey.generate())
        #expect(throws: DiskCacheError.keyMismatch(path: directory.url.standardizedFileURL.path, .anotherKey)) {
            _ = try DiskCache(configuration: EncryptedFixtures.configuration(directory, other))
        }
        #expect(directory.entryFileNames() == before)
        #expect(try DiskCache(configuration: EncryptedFixtures.configuration(directory)).verify().valid == urls.count)
    }

    @Test func logsNameDigestsNotURLs() throws {
        let log = LogRecorder()
        let cache = try DiskCache(configuration: EncryptedFixtures.configuration(directory, log: log))
        cache.store(testBytes(100), for: urls[0])
        cache.flush()
        try rewrite(urls[0]) { $0[50] ^= 1 }
        #expect(cache.data(for: urls[0]) == nil)
        let digest = encryption.keyHashing.digest(for: urls[0])
        #expect(log.warnings.contains { $0.contains(digest) })
        #expect(!log.messages.contains { line in EncryptedFixtures.hosts.contains { line.1.contains($0) } })
    }
}
