import Foundation
import PictorCore
import PictorCrypto
import Testing
@testable import PictorDiskCache

/// Found by a newcomer: a cache filled under one key and opened with no key or another key
/// wrote plaintext (or mixed-key) entries into it, and `verify()` then removed every entry.
/// Now the directory's index records which key (or none) the cache uses, and opening it with
/// another setting throws ``DiskCacheError/keyMismatch(path:_:)``.
@Suite(.timeLimit(.minutes(5)))
struct DiskCacheKeyCheckTests {
    let directory = TestDirectory()
    let urls = EncryptedFixtures.urls
    static let otherKey = try! EncryptionKey(bytes: (0..<32).map { UInt8($0) &* 7 &+ 3 })
    static let other = try! DiskCacheEncryption(masterKey: otherKey)

    func plain() -> DiskCache.Configuration { .test(directory) }
    func encrypted(_ encryption: DiskCacheEncryption = EncryptedFixtures.encryption) -> DiskCache.Configuration {
        EncryptedFixtures.configuration(directory, encryption)
    }

    func fill(_ configuration: DiskCache.Configuration) throws {
        let cache = try DiskCache(configuration: configuration)
        for (i, url) in urls.enumerated() { cache.store(testBytes(900, seed: UInt64(i) + 1), for: url) }
        cache.flush()
    }

    func mismatch(_ configuration: DiskCache.Configuration) -> DiskCacheError.KeyMismatch? {
        do {
            _ = try DiskCache(configuration: configuration)
            return nil
        } catch {
            guard let kind = error.keyMismatch, let path = error.path else { return nil }
            #expect(path == directory.url.standardizedFileURL.path)
            return kind
        }
    }

    func snapshot() -> [String: Data] {
        var out: [String: Data] = [:]
        for name in directory.entryFileNames() { out[name] = FileManager.default.contents(atPath: directory.path + "/" + name) }
        return out
    }

    func expectEncryptedEntriesIntact(_ before: [String: Data]) throws {
        #expect(snapshot() == before)
        let cache = try DiskCache(configuration: encrypted())
        for (i, url) in urls.enumerated() { #expect(cache.data(for: url) == testBytes(900, seed: UInt64(i) + 1)) }
        #expect(cache.verify().valid == urls.count)
    }

    /// ``ToyCipher`` under a key identifier of any length, its key standing in as one more
    /// byte of associated data (so that another key's files do not open).
    struct IdentifiedCipher: DataCipher {
        let keyIdentifier: Data
        var key: UInt8 = 0
        func seal(_ plaintext: Data, associatedData: Data) throws -> Data { try ToyCipher().seal(plaintext, associatedData: associatedData + [key]) }
        func open(_ envelope: Data, associatedData: Data) throws -> Data { try ToyCipher().open(envelope, associatedData: associatedData + [key]) }
    }

    /// Found by fuzzing (`key-record`): a cipher whose key identifier is over 512 bytes was
    /// recorded as more hex than a well-formed record holds, so the index was refused as damaged
    /// as soon as it was written: the cache never opened. Its record is now well-formed, and
    /// another long identifier is another key.
    @Test func aCipherWithAKeyIdentifierOver512BytesOpensAndIsItsOwnKey() throws {
        let long = IdentifiedCipher(keyIdentifier: Data((0..<600).map { UInt8($0 & 0xFF) }))
        let other = IdentifiedCipher(keyIdentifier: Data((0..<600).map { UInt8($0 & 0xFF) ^ ($0 == 599 ? 1 : 0) }), key: 1)
        #expect(KeyCheck(long).isWellFormed && KeyCheck(long).mismatch(configured: KeyCheck(long)) == nil)
        #expect(KeyCheck(long).mismatch(configured: KeyCheck(other)) == .anotherKey)
        var configuration = plain()
        configuration.cipher = long
        do {
            let cache = try DiskCache(configuration: configuration)
            cache.store(testBytes(900, seed: 1), for: urls[0])
            cache.flush()
        }
        #expect(try DiskCache(configuration: configuration).data(for: urls[0]) == testBytes(900, seed: 1))
        configuration.cipher = other
        #expect(mismatch(configuration) == .anotherKey)
    }

    @Test func anEncryptedCacheOpenedWithNoKeyIsRefused() throws {
        try fill(encrypted())
        let before = snapshot()
        #expect(mismatch(plain()) == .keyRequired)
        for url in urls { #expect(!FileManager.default.fileExists(atPath: directory.path + "/" + SHA256.hexDigest(url))) }
        try expectEncryptedEntriesIntact(before)
    }

    @Test func anEncryptedCacheOpenedWithAnotherKeyIsRefused() throws {
        try fill(encrypted())
        let before = snapshot()
        #expect(mismatch(encrypted(Self.other)) == .anotherKey)
        var sameNamesOtherContentKey = encrypted()
        sameNamesOtherContentKey.cipher = try AESGCMCipher(key: Self.otherKey)
        #expect(mismatch(sameNamesOtherContentKey) == .anotherKey)
        try expectEncryptedEntriesIntact(before)
    }

    @Test func aPlainCacheOpenedWithAKeyIsRefused() throws {
        try fill(plain())
        #expect(mismatch(encrypted()) == .notEncrypted)
        let cache = try DiskCache(configuration: plain())
        #expect(cache.verify().valid == urls.count)
    }

    @Test func messagesSayWhatToDoAndNeverShowKeyBytes() throws {
        let path = "/var/cache/pictor"
        let texts = [DiskCacheError.KeyMismatch.anotherKey, .keyRequired, .notEncrypted].map {
            DiskCacheError.keyMismatch(path: path, $0).description
        }
        #expect(texts[0] == "disk cache \(path): this cache was encrypted with another key; open it with that key")
        #expect(texts[1] == "disk cache \(path): this cache is encrypted; open it with its key")
        #expect(texts[2] == "disk cache \(path): this cache is not encrypted; open it without a key and use rotateKey to encrypt it")
        let secrets = [EncryptedFixtures.masterKey, Self.otherKey].map { key in key.withUnsafeBytes { Hex.encode($0) } }
            + [Hex.encode(EncryptedFixtures.encryption.keyIdentifier), Hex.encode(Self.other.keyIdentifier)]
        for text in texts { for secret in secrets { #expect(!text.contains(secret)) } }
    }

    @Test func anEmptyCacheKeepsItsRecordedSetting() throws {
        // A newcomer found that clearing (or rotating) an encrypted cache let the next opening
        // with no key write plaintext into it, and let the old key take it back after a rekey.
        _ = try DiskCache(configuration: encrypted())          // created under the fixture key, never written
        #expect(mismatch(encrypted(Self.other)) == .anotherKey)
        #expect(mismatch(plain()) == .keyRequired)
        do {
            let cache = try DiskCache(configuration: encrypted())
            cache.removeAll()
            cache.flush()
        }
        #expect(mismatch(plain()) == .keyRequired, "a cleared encrypted cache stays encrypted")
        do {
            let cache = try DiskCache(configuration: encrypted())
            cache.rotateKey(to: Self.other)
            cache.flush()
        }
        #expect(mismatch(encrypted()) == .anotherKey, "the old key does not take a rotated cache back")
        #expect(try DiskCache(configuration: encrypted(Self.other)).count == 0)
    }

    @Test func anotherInstanceStillOpenKeepsTheSetting() throws {
        let first = try DiskCache(configuration: encrypted())
        #expect(first.count == 0)
        #expect(mismatch(encrypted(Self.other)) == .anotherKey, "empty, but in use under another key")
        #expect(mismatch(plain()) == .keyRequired)
        let second = try DiskCache(configuration: encrypted())
        first.store(Data("a".utf8), for: urls[0])
        first.flush()
        #expect(second.data(for: urls[0]) == Data("a".utf8))
    }

    @Test func rotationRecordsTheNewKeyWithTheClear() throws {
        try fill(encrypted())
        do {
            let cache = try DiskCache(configuration: encrypted())
            cache.rotateKey(to: Self.other)
            cache.store(Data("new".utf8), for: urls[0])
            cache.flush()
        }
        #expect(mismatch(encrypted()) == .anotherKey)
        #expect(mismatch(plain()) == .keyRequired)
        let cache = try DiskCache(configuration: encrypted(Self.other))
        #expect(cache.data(for: urls[0]) == Data("new".utf8))
        #expect(cache.count == 1)
    }

    @Test func rotationFromPlainToEncryptedAndBack() throws {
        try fill(plain())
        do {
            let cache = try DiskCache(configuration: plain())
            cache.rotateKey(to: EncryptedFixtures.encryption)
            cache.store(Data("sealed".utf8), for: urls[0])
            cache.flush()
        }
        #expect(mismatch(plain()) == .keyRequired)
        do {
            let cache = try DiskCache(configuration: encrypted())
            #expect(cache.data(for: urls[0]) == Data("sealed".utf8))
            cache.rotateKey(cipher: nil, keyHashing: SHA256KeyHashing())
            cache.store(Data("plain".utf8), for: urls[1])
            cache.flush()
        }
        #expect(mismatch(encrypted()) == .notEncrypted)
        #expect(try DiskCache(configuration: plain()).data(for: urls[1]) == Data("plain".utf8))
    }

    func deleteIndex() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory.path + "/index.sqlite" + suffix) }
    }

    @Test func aLostIndexIsRederivedFromTheFilesNeverGuessed() throws {
        try fill(encrypted())
        let before = snapshot()
        deleteIndex()
        #expect(mismatch(plain()) == .keyRequired, "a plain rebuild would have deleted every sealed file")
        deleteIndex()
        #expect(mismatch(encrypted(Self.other)) == .anotherKey)
        deleteIndex()
        try expectEncryptedEntriesIntact(before)
    }

    @Test func aCorruptIndexOfAPlainCacheKeepsItPlain() throws {
        try fill(plain())
        try Data("garbage, not SQLite".utf8).write(to: URL(fileURLWithPath: directory.path + "/index.sqlite"))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory.path + "/index.sqlite" + suffix) }
        #expect(mismatch(encrypted()) == .notEncrypted)
        #expect(try DiskCache(configuration: plain()).count == urls.count)
    }

    @Test func anIndexFromBeforeTheKeyCheckIsUpgradedFromItsFiles() throws {
        try fill(encrypted())
        try downgradeIndexToVersion1()
        #expect(mismatch(plain()) == .keyRequired)
        try downgradeIndexToVersion1()
        #expect(mismatch(encrypted(Self.other)) == .anotherKey)
        try downgradeIndexToVersion1()
        let cache = try DiskCache(configuration: encrypted())
        #expect(cache.count == urls.count)
        #expect(cache.data(for: urls[0]) == testBytes(900, seed: 1))
    }

    /// Rewrites the index as version 1 wrote it: no `settings` table.
    func downgradeIndexToVersion1() throws {
        let connection = try SQLiteConnection(path: directory.path + "/index.sqlite")
        try connection.execute("DROP TABLE IF EXISTS settings; PRAGMA user_version = 1")
    }

    @Test func discardingOnMismatchStartsOverUnderTheNewKey() throws {
        try fill(encrypted())
        var configuration = encrypted(Self.other)
        configuration.keyMismatchPolicy = .removeEntries
        let cache = try DiskCache(configuration: configuration)
        #expect(cache.count == 0)
        #expect(directory.entryFileNames().isEmpty)
        cache.store(Data("b".utf8), for: urls[1])
        cache.flush()
        #expect(try DiskCache(configuration: encrypted(Self.other)).data(for: urls[1]) == Data("b".utf8))
        #expect(mismatch(encrypted()) == .anotherKey)
    }

    @Test func discardingOnMismatchCountsWhatItRemoved() throws {
        // Given an encrypted cache, opened without its key under the removal policy
        try fill(encrypted())
        var configuration = plain()
        configuration.keyMismatchPolicy = .removeEntries
        let cache = try DiskCache(configuration: configuration)
        // Then the entries it discarded are counted: a tool can say how many went
        #expect(cache.count == 0)
        #expect(directory.entryFileNames().isEmpty)
        #expect(cache.statistics.otherKeyEntriesRemoved == urls.count)
        // And a matching key discards and counts nothing
        #expect(try DiskCache(configuration: plain()).statistics.otherKeyEntriesRemoved == 0)
    }

    @Test func anInstanceWhoseKeyWasReplacedByAnotherStopsWriting() throws {
        let log = LogRecorder()
        let old = try DiskCache(configuration: EncryptedFixtures.configuration(directory, log: log))
        old.store(Data("old".utf8), for: urls[0])
        old.flush()
        var configuration = encrypted(Self.other)
        configuration.keyMismatchPolicy = .removeEntries
        let new = try DiskCache(configuration: configuration)
        new.store(Data("new".utf8), for: urls[1])
        new.flush()
        old.store(Data("mixed".utf8), for: urls[2])
        old.flush()
        #expect(new.count == 1)
        #expect(directory.entryFileNames() == [Self.other.keyHashing.digest(for: urls[1])])
        #expect(new.verify().valid == 1)
        #expect(!old.isEnabled)
        #expect(log.warnings.contains { $0.contains("another key") })
    }
}
