import Foundation
import PictorCore
import PictorCrypto
import Testing
@testable import PictorDiskCache

/// A toy authenticated cipher for the hook (the real AES-GCM one lives in PictorCrypto):
/// "TOY1" + SHA-256(associated data + plaintext) + plaintext XOR 0x5A.
struct ToyCipher: DataCipher {
    var keyIdentifier: Data { Data("toy".utf8) }

    func seal(_ plaintext: Data, associatedData: Data) throws -> Data {
        Data("TOY1".utf8) + Data(SHA256.hash(associatedData + plaintext)) + Data(plaintext.map { $0 ^ 0x5A })
    }

    func open(_ envelope: Data, associatedData: Data) throws -> Data {
        guard envelope.count >= 36, envelope.prefix(4) == Data("TOY1".utf8) else { throw CocoaError(.fileReadCorruptFile) }
        let plaintext = Data(envelope.dropFirst(36).map { $0 ^ 0x5A })
        guard Data(SHA256.hash(associatedData + plaintext)) == envelope.dropFirst(4).prefix(32) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return plaintext
    }
}

@Suite(.timeLimit(.minutes(5)))
struct DiskCacheCipherHookTests {
    let directory = TestDirectory()
    let log = LogRecorder()

    func open() throws -> DiskCache {
        var c = DiskCache.Configuration.test(directory, log: log)
        c.cipher = ToyCipher()
        return try DiskCache(configuration: c)
    }

    @Test func entriesAreSealedOnDiskAndOpenedOnRead() throws {
        let cache = try open()
        let bytes = testBytes(10_000)
        cache.store(bytes, for: "k")
        cache.flush()
        let onDisk = try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + SHA256.hexDigest("k")))
        #expect(onDisk.count == onDiskSize(10_000) + 36)
        #expect(onDisk.range(of: bytes.prefix(64)) == nil)
        #expect(try open().data(for: "k") == bytes)
        #expect(cache.totalSize == onDiskSize(10_000) + 36)
    }

    @Test func aTamperedEntryIsAMissRemovedAndCounted() throws {
        let cache = try open()
        cache.store(testBytes(1_000), for: "k")
        cache.flush()
        let path = directory.path + "/" + SHA256.hexDigest("k")
        var onDisk = try Data(contentsOf: URL(fileURLWithPath: path))
        onDisk[500] ^= 1
        try onDisk.write(to: URL(fileURLWithPath: path))
        #expect(cache.data(for: "k") == nil)
        cache.flush()
        #expect(cache.statistics.corruptEntriesRemoved == 1)
        #expect(!cache.contains("k"))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(log.warnings.allSatisfy { !$0.contains("\"k\"") })
    }

    @Test func entriesSwappedBetweenNamesFailToOpen() throws {
        let cache = try open()
        cache.store(Data("first".utf8), for: "a")
        cache.store(Data("second".utf8), for: "b")
        cache.flush()
        let a = directory.path + "/" + SHA256.hexDigest("a"), b = directory.path + "/" + SHA256.hexDigest("b")
        try FileManager.default.moveItem(atPath: a, toPath: a + ".x")
        try FileManager.default.moveItem(atPath: b, toPath: a)
        try FileManager.default.moveItem(atPath: a + ".x", toPath: b)
        #expect(cache.data(for: "a") == nil)
        #expect(cache.data(for: "b") == nil)
        cache.flush()
        #expect(cache.statistics.corruptEntriesRemoved == 2)
        #expect(cache.count == 0)
    }

    @Test func verifyReportsEntriesThatDoNotOpen() throws {
        let cache = try open()
        cache.store(Data("good".utf8), for: "good")
        cache.flush()
        // A plaintext entry slipped in under a name the index knows (a plain cache can no longer
        // be opened on an encrypted directory, so it is written by hand).
        let bad = SHA256.hexDigest("bad")
        let plain = Data("plaintext".utf8) + EntryContainer.trailer(payloadCount: 9, metadata: DataCacheMetadata(), created: 0, binding: KeyBinding(key: ""))
        try plain.write(to: URL(fileURLWithPath: directory.path + "/" + bad))
        cache.store(Data("placeholder".utf8), for: "bad")
        cache.flush()
        try plain.write(to: URL(fileURLWithPath: directory.path + "/" + bad))
        let report = cache.verify()
        #expect(report.valid == 1)
        #expect(report.corruptDigests == [bad])
    }

    @Test func validatorsAndUserInfoStayOutOfTheIndexWhenEncrypted() throws {
        let cache = try open()
        let metadata = DataCacheMetadata(etag: "\"content-hash-1234\"", lastModified: "Tue, 01 Jan 2030 00:00:00 GMT",
                                         cacheControl: "private, max-age=99", expiresAt: Date(timeIntervalSince1970: 2_000_000_000),
                                         format: .png, userInfo: Data("user-secret".utf8))
        cache.store(Data("x".utf8), for: "k", metadata: metadata)
        cache.flush()
        // Then reads still get everything (from the sealed file)
        #expect(try open().entry(for: "k")?.metadata == metadata)
        // But no file in the directory (index, WAL) holds the validators or the blob
        for name in try FileManager.default.subpathsOfDirectory(atPath: directory.path) {
            let contents = fileContents(atPath: directory.path + "/" + name) ?? Data()
            for needle in ["content-hash-1234", "2030", "max-age=99", "user-secret"] {
                #expect(contents.range(of: Data(needle.utf8)) == nil, "\(needle) in \(name)")
            }
        }
        #expect(cache.entries().first?.format == nil, "nor the format")
    }

    @Test func aRebuiltEncryptedIndexAdoptsSealedFilesBySize() throws {
        do {
            let cache = try open()
            cache.store(testBytes(700), for: "a", metadata: DataCacheMetadata(etag: "e"))
            cache.flush()
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory.path + "/index.sqlite" + suffix) }
        let cache = try open()
        #expect(cache.count == 1)
        #expect(cache.totalSize == onDiskSize(700) + "e".utf8.count + 5 + 36)
        #expect(cache.entry(for: "a") == DataCacheEntry(data: testBytes(700), metadata: DataCacheMetadata(etag: "e")))
    }
}
