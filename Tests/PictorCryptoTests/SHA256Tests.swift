import Foundation
import Testing
import PictorCrypto

@Suite struct SHA256Tests {
    @Test func knownAnswerForABC() {
        // FIPS 180-4 example "abc".
        #expect(SHA256.hexDigest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func emptyString() {
        #expect(SHA256.hexDigest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func hexRoundTrip() {
        #expect(Hex.decode(Hex.encode([0, 1, 0xAB, 0xFF])) == [0, 1, 0xAB, 0xFF])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
    }
}

@Suite struct SHA256PartsTests {
    @Test func partsHashLikeTheirConcatenation() {
        let a = Data("The quick brown fox ".utf8), b = Data(), c = Data("jumps over the lazy dog".utf8)
        #expect(PictorCrypto.SHA256.hash(parts: [a, b, c]) == PictorCrypto.SHA256.hash(a + b + c))
        #expect(PictorCrypto.SHA256.hash(parts: []) == PictorCrypto.SHA256.hash(Data()))
    }
}
