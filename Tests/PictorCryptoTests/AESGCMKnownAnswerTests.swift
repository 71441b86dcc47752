import Foundation
import Testing
@testable import PictorCrypto

/// AES-256-GCM test cases 13–16 of McGrew & Viega, "The Galois/Counter Mode of Operation"
/// (the vectors NIST's GCM validation uses), run through the raw engine below the envelope.
@Suite struct AESGCMKnownAnswerTests {
    struct Vector: Sendable, CustomStringConvertible {
        var name: String, key: String, iv: String, plaintext: String, aad: String, ciphertext: String, tag: String
        var description: String { name }
    }

    static let k15 = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"
    static let p15 = """
        d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72\
        1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255
        """
    static let c15 = """
        522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa\
        8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad
        """

    static let vectors: [Vector] = [
        Vector(name: "TC13", key: String(repeating: "00", count: 32), iv: String(repeating: "00", count: 12),
               plaintext: "", aad: "", ciphertext: "", tag: "530f8afbc74536b9a963b4f1c4cb738b"),
        Vector(name: "TC14", key: String(repeating: "00", count: 32), iv: String(repeating: "00", count: 12),
               plaintext: String(repeating: "00", count: 16), aad: "",
               ciphertext: "cea7403d4d606b6e074ec5d3baf39d18", tag: "d0d1c8a799996bf0265b98b5d48ab919"),
        Vector(name: "TC15", key: k15, iv: "cafebabefacedbaddecaf888", plaintext: p15, aad: "",
               ciphertext: c15, tag: "b094dac5d93471bdec1a502270e3cc6c"),
        Vector(name: "TC16", key: k15, iv: "cafebabefacedbaddecaf888", plaintext: String(p15.dropLast(8)),
               aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2", ciphertext: String(c15.dropLast(8)),
               tag: "76fc6ece0f4e1768cddf8853bb2d551b"),
    ]

    @Test(arguments: vectors) func encryptMatches(_ v: Vector) throws {
        let pool = try GCMContextPool(key: EncryptionKey(knownAnswerBytes: hex(v.key)))
        let (plaintext, iv, aad) = (hex(v.plaintext), hex(v.iv), hex(v.aad))
        // Twice: the second run goes through a reused (pooled) context.
        for _ in 0..<2 {
            var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
            var tag = [UInt8](repeating: 0, count: 16)
            try plaintext.withUnsafeBytes { p in
                try aad.withUnsafeBytes { a in
                    try pool.encrypt(nonce: iv, header: UnsafeRawBufferPointer(start: nil, count: 0), associatedData: a,
                                     plaintext: p, ciphertext: &ciphertext, tag: &tag)
                }
            }
            #expect(Hex.encode(ciphertext) == v.ciphertext)
            #expect(Hex.encode(tag) == v.tag)
        }
    }

    @Test(arguments: vectors) func decryptMatchesAndRejectsBadTag(_ v: Vector) throws {
        let pool = try GCMContextPool(key: EncryptionKey(knownAnswerBytes: hex(v.key)))
        let (ciphertext, iv, aad) = (hex(v.ciphertext), hex(v.iv), hex(v.aad))
        var tag = hex(v.tag)
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 1)
        func decrypt() throws {
            try ciphertext.withUnsafeBytes { c in
                try aad.withUnsafeBytes { a in
                    try pool.decrypt(nonce: iv, header: UnsafeRawBufferPointer(start: nil, count: 0), associatedData: a,
                                     ciphertext: c, plaintext: &plaintext, tag: tag)
                }
            }
        }
        try decrypt()
        #expect(Hex.encode(plaintext.dropLast()) == v.plaintext)
        tag[15] ^= 1
        #expect(throws: CryptoError.self) { try decrypt() }
        tag[15] ^= 1
        try decrypt()  // the context that failed is reusable
    }
}
