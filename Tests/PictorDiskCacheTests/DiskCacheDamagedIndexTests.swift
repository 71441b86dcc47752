import Foundation
import PictorCore
import PictorCrypto
import Testing
@testable import PictorDiskCache

/// A damaged index never locks the user out: what can be derived from the entry files is, the
/// damaged file is kept aside, and no setting is believed on damaged evidence.
@Suite(.timeLimit(.minutes(5)))
struct DiskCacheDamagedIndexTests {
    let directory = TestDirectory()
    let log = LogRecorder()
    var indexPath: String { directory.path + "/index.sqlite" }

    func plain() -> DiskCache.Configuration { .test(directory, log: log) }
    func encrypted(_ encryption: DiskCacheEncryption = EncryptedFixtures.encryption) -> DiskCache.Configuration {
        var c = DiskCache.Configuration.test(directory, log: log)
        c.encrypt(with: encryption)
        return c
    }

    func fill(_ configuration: DiskCache.Configuration, count: Int = 3) throws {
        let cache = try DiskCache(configuration: configuration)
        for i in 0..<count { cache.store(testBytes(400, seed: UInt64(i)), for: "k\(i)") }
        cache.flush()
    }

    func expectServed(_ cache: DiskCache, count: Int = 3) {
        for i in 0..<count { #expect(cache.data(for: "k\(i)") == testBytes(400, seed: UInt64(i)), "k\(i)") }
    }

    func asideFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasPrefix("index.sqlite.damaged-") && !$0.hasSuffix("-wal") }
    }

    func rewriteIndex(_ sql: String) throws {
        let connection = try SQLiteConnection(path: indexPath)
        try connection.execute(sql)
    }

    @Test func aGarbageIndexIsKeptAsideAndThePlainCacheStaysPlain() throws {
        try fill(plain())
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: indexPath))
        try? FileManager.default.removeItem(atPath: indexPath + "-wal")
        let cache = try DiskCache(configuration: plain())
        expectServed(cache)
        #expect(cache.count == 3)
        #expect(asideFiles().count == 1)
        #expect(log.warnings.contains { $0.contains("moved aside") })
    }

    @Test func aTruncatedIndexIsRebuilt() throws {
        try fill(plain(), count: 200)
        do {
            let index = try EntryIndex(path: indexPath, synchronousFull: false)
            try index.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let whole = try Data(contentsOf: URL(fileURLWithPath: indexPath))
        #expect(whole.count > 4096)
        try whole.prefix(4096).write(to: URL(fileURLWithPath: indexPath))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: indexPath + suffix) }
        let cache = try DiskCache(configuration: plain())
        expectServed(cache)
        #expect(cache.count == 200)
    }

    @Test func aKeyRecordClaimingEncryptionOverPlainFilesIsNotBelieved() throws {
        // Given a plain cache whose key record says it is encrypted
        try fill(plain())
        try rewriteIndex("UPDATE settings SET value = 'cipher:0011223344556677' WHERE name = 'key_check'")
        // When it is opened without a key, then it opens (the files are plain) and serves
        let cache = try DiskCache(configuration: plain())
        expectServed(cache)
        #expect(asideFiles().count == 1)
        // And the rebuilt index records what the files say
        #expect(try EntryIndex(path: indexPath, synchronousFull: false).keyCheck() == KeyCheck(nil))
    }

    @Test func aKeyRecordNamingAnotherKeyOverFilesSealedUnderThisOneIsNotBelieved() throws {
        try fill(encrypted())
        try rewriteIndex("UPDATE settings SET value = 'cipher:ffffffffffffffff' WHERE name = 'key_check'")
        let cache = try DiskCache(configuration: encrypted())
        expectServed(cache)
    }

    @Test func aGarbageKeyRecordIsNotBelieved() throws {
        try fill(plain())
        try rewriteIndex("UPDATE settings SET value = 'nonsense' WHERE name = 'key_check'")
        let cache = try DiskCache(configuration: plain())
        expectServed(cache)
    }

    @Test func aRightKeyRecordStillRefusesTheWrongKey() throws {
        // The evidence check never overrides a record the files agree with
        try fill(encrypted())
        #expect(throws: DiskCacheError.keyMismatch(path: directory.path, .keyRequired)) { try DiskCache(configuration: plain()) }
        let other = try DiskCacheEncryption(masterKey: EncryptionKey(bytes: (0..<32).map { UInt8($0) &* 7 &+ 3 }))
        #expect(throws: DiskCacheError.keyMismatch(path: directory.path, .anotherKey)) { try DiskCache(configuration: encrypted(other)) }
        #expect(asideFiles().isEmpty)
    }

    @Test func aPlainRecordOverSealedFilesRefusesAKeylessOpenButNotTheirKey() throws {
        // Files sealed under the configured key outweigh a record saying "plain" …
        try fill(encrypted())
        try rewriteIndex("UPDATE settings SET value = 'plain' WHERE name = 'key_check'")
        let cache = try DiskCache(configuration: encrypted())
        expectServed(cache)
    }

    @Test func aWrongSchemaVersionIsRebuilt() throws {
        try fill(plain())
        // The tables of version 2 under a version number that says 1 (a migration would fail)
        try rewriteIndex("PRAGMA user_version = 1")
        let cache = try DiskCache(configuration: plain())
        expectServed(cache)
        #expect(cache.count == 3)
    }

    @Test func aMissingTableIsRebuilt() throws {
        try fill(plain())
        try rewriteIndex("DROP TABLE intents")
        let cache = try DiskCache(configuration: plain())
        expectServed(cache)
        #expect(cache.count == 3)
    }

    @Test func anEarlierDamagedIndexIsNeverOverwritten() throws {
        try fill(plain())
        for _ in 0..<2 {
            try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: indexPath))
            try? FileManager.default.removeItem(atPath: indexPath + "-wal")
            _ = try DiskCache(configuration: plain())
        }
        #expect(asideFiles().count == 2)
    }

    func damageAndReopen() throws {
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: indexPath))
        try? FileManager.default.removeItem(atPath: indexPath + "-wal")
        _ = try DiskCache(configuration: plain())
    }

    @Test func onlyTheNewestThreeDamagedIndexesAreKept() throws {
        try fill(plain())
        var order: [String] = []
        for _ in 0..<5 {
            let before = Set(asideFiles())
            try damageAndReopen()
            let new = Set(asideFiles()).subtracting(before)
            order += new
            // A WAL moved aside with each one
            for name in new { try Data("wal".utf8).write(to: directory.url.appendingPathComponent(name + "-wal")) }
        }
        #expect(order.count == 5, "each damaged index was moved aside: \(order)")
        // The two oldest went, with their WALs; the newest three stay, with theirs
        let kept = Set(order.suffix(3))
        #expect(Set(asideFiles()) == kept)
        let all = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("index.sqlite.damaged-") }
        #expect(Set(all) == kept.union(kept.map { $0 + "-wal" }), "\(all)")
        expectServed(try DiskCache(configuration: plain()))
    }

    @Test func clearingTheCacheRemovesTheDamagedIndexes() throws {
        try fill(plain())
        try damageAndReopen()
        try damageAndReopen()
        #expect(asideFiles().count == 2)
        let cache = try DiskCache(configuration: plain())
        cache.removeAll()
        cache.flush()
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("index.sqlite.") }
        #expect(left.isEmpty, "\(left)")
        #expect(cache.count == 0)
    }
}

/// A stray plain entry file in an encrypted cache is never the evidence that makes the cache
/// plain: opening it without the key must not adopt it as plain and delete the sealed entries.
@Suite(.timeLimit(.minutes(5)))
struct DiskCacheStrayPlainFileTests {
    let directory = TestDirectory()
    let log = LogRecorder()

    func encrypted() -> DiskCache.Configuration {
        var c = DiskCache.Configuration.test(directory, log: log)
        c.encrypt(with: EncryptedFixtures.encryption)
        return c
    }

    /// An encrypted cache of three entries plus one plain entry file copied in from another cache.
    func makeMixed() throws -> [String] {
        do {
            let cache = try DiskCache(configuration: encrypted())
            for i in 0..<3 { cache.store(testBytes(400, seed: UInt64(i)), for: "k\(i)") }
            cache.flush()
        }
        let other = TestDirectory()
        do {
            let plain = try DiskCache(configuration: .test(other))
            plain.store(testBytes(300, seed: 9), for: "stray")
            plain.flush()
        }
        let name = SHA256.hexDigest("stray")
        try FileManager.default.copyItem(atPath: other.path + "/" + name, toPath: directory.path + "/" + name)
        return directory.entryFileNames().sorted()
    }

    @Test func withItsIndexLostAKeylessOpenIsRefusedAndNothingIsDeleted() throws {
        let files = try makeMixed()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory.path + "/index.sqlite" + suffix) }
        #expect(throws: DiskCacheError.keyMismatch(path: directory.path, .keyRequired)) {
            try DiskCache(configuration: .test(directory, log: log))
        }
        #expect(directory.entryFileNames().sorted() == files)
        // And the key still opens it, serving every sealed entry
        let cache = try DiskCache(configuration: encrypted())
        for i in 0..<3 { #expect(cache.data(for: "k\(i)") == testBytes(400, seed: UInt64(i))) }
    }

    @Test func withItsIndexIntactAKeylessOpenIsRefusedAndNothingIsDeleted() throws {
        let files = try makeMixed()
        #expect(throws: DiskCacheError.keyMismatch(path: directory.path, .keyRequired)) {
            try DiskCache(configuration: .test(directory, log: log))
        }
        #expect(directory.entryFileNames().sorted() == files)
        let cache = try DiskCache(configuration: encrypted())
        for i in 0..<3 { #expect(cache.data(for: "k\(i)") == testBytes(400, seed: UInt64(i))) }
    }
}
