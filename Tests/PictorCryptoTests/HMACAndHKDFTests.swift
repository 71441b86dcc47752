import Foundation
import Testing
import PictorCrypto

/// HMAC-SHA256 test cases 1–7 of RFC 4231 §4 and HKDF-SHA256 test case 1 of RFC 5869 (A.1).
@Suite struct HMACAndHKDFTests {
    struct Vector: Sendable, CustomStringConvertible {
        var name: String, key: [UInt8], data: [UInt8], mac: String
        var description: String { name }
    }

    static let vectors: [Vector] = [
        Vector(name: "4231 TC1", key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
               mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Vector(name: "4231 TC2", key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
               mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Vector(name: "4231 TC3", key: [UInt8](repeating: 0xaa, count: 20), data: [UInt8](repeating: 0xdd, count: 50),
               mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Vector(name: "4231 TC4", key: Array(1...25), data: [UInt8](repeating: 0xcd, count: 50),
               mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        // TC5 specifies only the first 128 bits of the tag.
        Vector(name: "4231 TC5", key: [UInt8](repeating: 0x0c, count: 20), data: Array("Test With Truncation".utf8),
               mac: "a3b6167473100ee06e0c796c2955552b"),
        Vector(name: "4231 TC6", key: [UInt8](repeating: 0xaa, count: 131),
               data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
               mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Vector(name: "4231 TC7", key: [UInt8](repeating: 0xaa, count: 131),
               data: Array(("This is a test using a larger than block-size key and a larger than block-size data. "
                   + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
               mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: vectors) func rfc4231(_ v: Vector) throws {
        let mac = try HMACSHA256(keyBytes: v.key)
        // Twice on one instance: the keyed template must not be consumed.
        for _ in 0..<2 {
            #expect(Hex.encode(mac.authenticationCode(for: v.data)).hasPrefix(v.mac))
        }
        #expect(Hex.encode(try HMACSHA256.authenticationCode(key: v.key, data: v.data)).hasPrefix(v.mac))
    }

    @Test func emptyMessage() throws {
        // HMAC-SHA256 with an empty key and empty message (a widely published value).
        #expect(Hex.encode(try HMACSHA256.authenticationCode(key: [UInt8](), data: [UInt8]()))
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func rfc5869TestCase1() throws {
        let okm = try HKDFSHA256.deriveBytes(
            inputKeyMaterial: [UInt8](repeating: 0x0b, count: 22), salt: hex("000102030405060708090a0b0c"),
            info: hex("f0f1f2f3f4f5f6f7f8f9"), outputByteCount: 42)
        #expect(Hex.encode(okm) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    @Test func rfc5869TestCase3EmptySaltAndInfo() throws {
        // RFC 5869 A.3: zero-length salt and info.
        let okm = try HKDFSHA256.deriveBytes(
            inputKeyMaterial: [UInt8](repeating: 0x0b, count: 22), salt: [UInt8](), info: [UInt8](), outputByteCount: 42)
        #expect(Hex.encode(okm) == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    @Test func deriveKeyMatchesDeriveBytesAndLabelsSeparate() throws {
        let master = try EncryptionKey(bytes: (0..<32).map { UInt8($0) ^ 7 })
        let a = try HKDFSHA256.deriveKey(from: master, info: Data("a".utf8))
        let b = try HKDFSHA256.deriveKey(from: master, info: Data("b".utf8))
        let bytes = try master.withUnsafeBytes { m in
            try HKDFSHA256.deriveBytes(inputKeyMaterial: Array(m), salt: [UInt8](), info: Array("a".utf8), outputByteCount: 32)
        }
        #expect(a == (try EncryptionKey(bytes: bytes)))
        #expect(a != b)
        #expect(throws: CryptoError.self) {
            try HKDFSHA256.deriveBytes(inputKeyMaterial: [1], salt: [UInt8](), info: [UInt8](), outputByteCount: 8161)
        }
    }
}
