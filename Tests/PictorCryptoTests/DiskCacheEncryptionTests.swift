import Foundation
import Testing
import PictorCrypto

@Suite struct DiskCacheEncryptionTests {
    let master = try! EncryptionKey(bytes: (0..<32).map { UInt8($0) ^ 0x11 })

    @Test func derivedKeysAreDistinctFromEachOtherAndTheMaster() throws {
        let encryption = try DiskCacheEncryption(masterKey: master)
        let content = try HKDFSHA256.deriveKey(from: master, info: Data(DiskCacheEncryption.contentKeyLabel.utf8))
        let name = try HKDFSHA256.deriveKey(from: master, info: Data(DiskCacheEncryption.nameKeyLabel.utf8))
        #expect(content != name && content != master && name != master)
        #expect(encryption.keyIdentifier == (try AESGCMCipher(key: content)).keyIdentifier)
        #expect(encryption.keyIdentifier != (try AESGCMCipher(key: master)).keyIdentifier)
        let url = "https://images.example.com/photos/1.jpg"
        #expect(encryption.keyHashing.digest(for: url) == (try HMACKeyHashing(nameKey: name)).digest(for: url))
    }

    @Test func keyedNamesAreStableHexAndKeyDependent() throws {
        let a = try DiskCacheEncryption(masterKey: master).keyHashing
        let b = try DiskCacheEncryption(masterKey: EncryptionKey.generate()).keyHashing
        let url = "https://images.example.com/photos/1.jpg"
        let digest = a.digest(for: url)
        #expect(digest.count == 64 && digest.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(digest == a.digest(for: url))
        #expect(digest != b.digest(for: url))
        #expect(digest != SHA256.hexDigest(url))
        #expect(a.digest(for: "") != a.digest(for: " "))
        #expect(a.digest(for: String(repeating: "写真", count: 5000)).count == 64)
    }

    @Test func hmacKeyHashingMatchesHMAC() throws {
        let nameKey = try EncryptionKey(bytes: (0..<32).map { UInt8($0) ^ 0x0b })
        let expected = try HMACSHA256(key: nameKey).authenticationCode(for: Data("key".utf8))
        #expect(try HMACKeyHashing(nameKey: nameKey).digest(for: "key") == Hex.encode(expected))
    }
}

@Suite struct HMACKeyHashingConcurrencyTests {
    @Test func concurrentDigestsMatchSerialOnes() async throws {
        let hashing = try DiskCacheEncryption(masterKey: EncryptionKey.generate()).keyHashing
        let keys = (0..<500).map { "https://images.example.com/\($0).jpg" }
        let expected = keys.map { hashing.digest(for: $0) }
        #expect(Set(expected).count == keys.count)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for (key, digest) in zip(keys, expected) { #expect(hashing.digest(for: key) == digest) }
                }
            }
        }
    }
}
