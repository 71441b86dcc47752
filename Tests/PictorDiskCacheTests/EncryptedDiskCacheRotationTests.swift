import Foundation
import Testing
import PictorCore
import PictorCrypto
@testable import PictorDiskCache

@Suite struct EncryptedDiskCacheRotationTests {
    let directory = TestDirectory()
    let urls = EncryptedFixtures.urls

    /// The key identifiers found in the entry files' envelope headers.
    func keyIdentifiersOnDisk() -> Set<Data> {
        Set(directory.entryFileNames().compactMap { name in
            FileManager.default.contents(atPath: directory.path + "/" + name).map { $0.count >= 13 ? $0[5..<13] : Data() }
        })
    }

    @Test func rotationDropsOldEntriesAndKeepsWorking() throws {
        let old = EncryptedFixtures.encryption
        let new = try DiskCacheEncryption(masterKey: EncryptionKey.generate())
        let cache = try DiskCache(configuration: EncryptedFixtures.configuration(directory, old))
        for url in urls { cache.store(testBytes(2000), for: url) }
        cache.flush()
        #expect(keyIdentifiersOnDisk() == [old.keyIdentifier])

        cache.rotateKey(to: new)
        for url in urls { #expect(cache.data(for: url) == nil, "old entries are gone at once") }
        cache.store(testBytes(3000, seed: 9), for: urls[0])
        #expect(cache.data(for: urls[0]) == testBytes(3000, seed: 9))
        cache.flush()
        #expect(keyIdentifiersOnDisk() == [new.keyIdentifier], "no file sealed under the old key is left")
        #expect(directory.entryFileNames() == [new.keyHashing.digest(for: urls[0])])
        #expect(cache.statistics.corruptEntriesRemoved == 0, "a rotation is not corruption")

        let reopened = try DiskCache(configuration: EncryptedFixtures.configuration(directory, new))
        #expect(reopened.data(for: urls[0]) == testBytes(3000, seed: 9))
        #expect(reopened.data(for: urls[1]) == nil)
    }

    @Test func rotationDuringConcurrentUse() async throws {
        let new = try DiskCacheEncryption(masterKey: EncryptionKey.generate())
        let cache = try DiskCache(configuration: EncryptedFixtures.configuration(directory))
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<4 {
                group.addTask {
                    for i in 0..<100 {
                        let url = "https://secret-host.example.org/\(t)/\(i).jpg"
                        cache.store(testBytes(500 + i, seed: UInt64(i)), for: url)
                        if let data = cache.data(for: url) { #expect(data == testBytes(500 + i, seed: UInt64(i))) }
                    }
                }
            }
            group.addTask { cache.rotateKey(to: new) }
        }
        cache.flush()
        #expect(keyIdentifiersOnDisk().isSubset(of: [new.keyIdentifier]))
        cache.store(testBytes(10), for: urls[2])
        #expect(cache.data(for: urls[2]) == testBytes(10))
    }

    @Test func encryptingAPlainCacheRemovesThePlainFiles() throws {
        var plain = DiskCache.Configuration.test(directory)
        plain.cipher = nil
        let cache = try DiskCache(configuration: plain)
        cache.store(Data("visible".utf8), for: urls[0])
        cache.flush()
        cache.rotateKey(to: EncryptedFixtures.encryption)
        cache.flush()
        #expect(directory.entryFileNames().isEmpty)
        cache.store(Data("hidden".utf8), for: urls[0])
        cache.flush()
        #expect(keyIdentifiersOnDisk() == [EncryptedFixtures.encryption.keyIdentifier])
    }
}
