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

    /// Digests made on reused contexts, from many threads at once, are each input's own: a
    /// context is never shared or left holding a previous input.
    @Test func reusedContextsGiveEachInputItsDigest() async {
        let inputs = (0..<64).map { "https://example.org/images/\($0).jpg?size=\(String(repeating: "x", count: $0 * 7))" }
        let expected = inputs.map { SHA256.hexDigest($0) }
        await withTaskGroup(of: Bool.self) { group in
            for round in 0..<8 {
                group.addTask {
                    (0..<400).allSatisfy { i in
                        let index = (i * 31 + round) % inputs.count
                        return SHA256.hexDigest(inputs[index]) == expected[index]
                            && Hex.encode(SHA256.hash(Data(inputs[index].utf8))) == expected[index]
                    }
                }
            }
            for await ok in group { #expect(ok) }
        }
        #expect(expected[0] != expected[1] && expected.allSatisfy { $0.count == 64 })
    }

    @Test func hexRoundTrip() {
        #expect(Hex.decode(Hex.encode([0, 1, 0xAB, 0xFF])) == [0, 1, 0xAB, 0xFF])
        let bytes: [UInt8] = [0x00, 0x0F, 0x10, 0x9A, 0xFF]
        #expect(bytes.withUnsafeBytes { Hex.encode($0) } == "000f109aff")
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
