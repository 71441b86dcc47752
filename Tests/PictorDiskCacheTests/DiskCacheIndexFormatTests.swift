import Foundation
import PictorCore
import PictorCrypto
import Testing
@testable import PictorDiskCache

/// Found by a newcomer: the index of an encrypted cache held each entry's image format, and a
/// rebuilt index of a plain cache listed every entry stored without a format as "unknown".
@Suite(.timeLimit(.minutes(5)))
struct DiskCacheIndexFormatTests {
    let directory = TestDirectory()
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0]) + testBytes(300)
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + testBytes(300)

    func formatsInIndex() throws -> [String?] {
        let connection = try SQLiteConnection(path: directory.path + "/index.sqlite")
        let statement = try connection.statement("SELECT format FROM entries")
        defer { statement.finish() }
        var out: [String?] = []
        while try statement.step() { out.append(statement.text(0)) }
        return out
    }

    func deleteIndex() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory.path + "/index.sqlite" + suffix) }
    }

    @Test func anEncryptedIndexHoldsNoFormat() throws {
        let cache = try DiskCache(configuration: EncryptedFixtures.configuration(directory))
        cache.store(Self.png, for: "a", metadata: DataCacheMetadata(format: .png))
        cache.store(Self.jpeg, for: "b")
        cache.flush()
        #expect(try formatsInIndex() == [nil, nil])
        #expect(cache.entries().allSatisfy { $0.format == nil })
        #expect(cache.entry(for: "a")?.metadata.format == .png, "the sealed file keeps it")
    }

    @Test func upgradingAnEncryptedIndexErasesTheFormatsItHeld() throws {
        do {
            let cache = try DiskCache(configuration: EncryptedFixtures.configuration(directory))
            cache.store(Self.png, for: "a", metadata: DataCacheMetadata(format: .png))
            cache.flush()
        }
        // As version 1 left it: a format column filled in, no key check.
        let connection = try SQLiteConnection(path: directory.path + "/index.sqlite")
        try connection.execute("UPDATE entries SET format = 'png'; DROP TABLE IF EXISTS settings; PRAGMA user_version = 1")
        let cache = try DiskCache(configuration: EncryptedFixtures.configuration(directory))
        #expect(try formatsInIndex() == [nil])
        #expect(cache.entry(for: "a")?.metadata.format == .png)
    }

    @Test func aPlainIndexRecordsTheSniffedFormatOfEntriesStoredWithout() throws {
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(Self.jpeg, for: "j")
        cache.store(Data("not an image".utf8), for: "x")
        cache.flush()
        let formats = Dictionary(uniqueKeysWithValues: cache.entries().map { ($0.digest, $0.format) })
        #expect(formats[SHA256.hexDigest("j")] == .jpeg)
        #expect(formats[SHA256.hexDigest("x")] == .some(nil))
        #expect(cache.entry(for: "j")?.metadata.format == nil, "the caller's metadata is returned as stored")
    }

    @Test func aRebuiltPlainIndexRederivesFormats() throws {
        do {
            let cache = try DiskCache(configuration: .test(directory))
            cache.store(Self.jpeg, for: "j")
            cache.store(Self.png, for: "p", metadata: DataCacheMetadata(format: .png))
            cache.store(Data("GIF89a".utf8) + testBytes(50), for: "g", metadata: DataCacheMetadata(etag: "e"))
            cache.flush()
        }
        deleteIndex()
        let cache = try DiskCache(configuration: .test(directory))
        let formats = Dictionary(uniqueKeysWithValues: cache.entries().map { ($0.digest, $0.format) })
        #expect(formats == [SHA256.hexDigest("j"): .jpeg, SHA256.hexDigest("p"): .png, SHA256.hexDigest("g"): .gif])
        #expect(cache.verify().valid == 3)
    }
}
