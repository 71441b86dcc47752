import Foundation
import Testing
import PictorCrypto

@Suite struct AESGCMCipherTests {
    let cipher: AESGCMCipher
    let name = Data("3f2a9c".utf8)

    init() throws {
        cipher = try AESGCMCipher(key: EncryptionKey(bytes: (0..<32).map { UInt8($0) ^ 0x42 }))
    }

    func expectFailure(_ code: CryptoError.Code, _ body: () throws -> Data) {
        do {
            _ = try body()
            Issue.record("expected \(code), got plaintext")
        } catch let error as CryptoError {
            #expect(error.code == code, "\(error)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func emptyRoundTrip() throws {
        let sealed = try cipher.seal(Data(), associatedData: name)
        #expect(sealed.count == AESGCMCipher.overheadByteCount)
        #expect(try cipher.open(sealed, associatedData: name) == Data())
    }

    @Test func twentyMegabyteRoundTrip() throws {
        var plain = Data(count: 20 * 1024 * 1024)
        plain.withUnsafeMutableBytes { buffer in
            for i in stride(from: 0, to: buffer.count, by: 4096) { buffer[i] = UInt8(truncatingIfNeeded: i / 4096) }
        }
        let sealed = try cipher.seal(plain, associatedData: name)
        #expect(sealed.count == plain.count + 41)
        #expect(try cipher.open(sealed, associatedData: name) == plain)
    }

    @Test func envelopeLayout() throws {
        let plain = Data("hello".utf8)
        let a = try cipher.seal(plain, associatedData: name)
        let b = try cipher.seal(plain, associatedData: name)
        #expect(Array(a.prefix(5)) == [0x50, 0x58, 0x43, 0x45, 1])
        #expect(a[5..<13] == cipher.keyIdentifier)
        #expect(cipher.keyIdentifier.count == 8)
        #expect(a[13..<25] != b[13..<25], "a fresh nonce per seal")
        #expect(a.range(of: plain) == nil, "plaintext does not appear")
        #expect(try cipher.open(a, associatedData: name) == plain)
    }

    @Test func sliceInputs() throws {
        // Data slices with non-zero start indices go through withUnsafeBytes correctly.
        let plain = Data("xxhello".utf8).dropFirst(2)
        let sealed = try Data([9, 9]) + cipher.seal(plain, associatedData: name)
        #expect(try cipher.open(sealed.dropFirst(2), associatedData: name[...]) == Data("hello".utf8))
    }

    @Test func everyFlippedByteFails() throws {
        let sealed = try cipher.seal(Data((0..<64).map { UInt8($0) }), associatedData: name)
        for i in 0..<sealed.count {
            var bad = sealed
            bad[i] ^= 0x01
            let expected: CryptoError.Code = switch i {
            case 0..<4: .malformedEnvelope
            case 4: .unsupportedVersion
            case 5..<13: .keyMismatch
            default: .authenticationFailed
            }
            expectFailure(expected) { try cipher.open(bad, associatedData: name) }
        }
    }

    @Test func truncatedFails() throws {
        let sealed = try cipher.seal(Data(repeating: 1, count: 100), associatedData: name)
        for length in [0, 1, 12, 40, 41, 100, sealed.count - 1] {
            let code: CryptoError.Code = length < 41 ? .malformedEnvelope : length < 4 ? .malformedEnvelope : .authenticationFailed
            expectFailure(code) { try cipher.open(sealed.prefix(length), associatedData: name) }
        }
        var extended = sealed
        extended.append(0)
        expectFailure(.authenticationFailed) { try cipher.open(extended, associatedData: name) }
    }

    @Test func wrongAssociatedDataFails() throws {
        let sealed = try cipher.seal(Data("entry".utf8), associatedData: name)
        expectFailure(.authenticationFailed) { try cipher.open(sealed, associatedData: Data("other".utf8)) }
        expectFailure(.authenticationFailed) { try cipher.open(sealed, associatedData: Data()) }
    }

    @Test func wrongKeyFails() throws {
        let other = try AESGCMCipher(key: EncryptionKey.generate())
        let sealed = try cipher.seal(Data("entry".utf8), associatedData: name)
        expectFailure(.keyMismatch) { try other.open(sealed, associatedData: name) }
        // A forged header carrying the right key identifier still fails on the tag.
        var forged = try other.seal(Data("entry".utf8), associatedData: name)
        forged.replaceSubrange(5..<13, with: cipher.keyIdentifier)
        expectFailure(.authenticationFailed) { try cipher.open(forged, associatedData: name) }
    }

    @Test func sameKeySameIdentifier() throws {
        let again = try AESGCMCipher(key: EncryptionKey(bytes: (0..<32).map { UInt8($0) ^ 0x42 }))
        #expect(again.keyIdentifier == cipher.keyIdentifier)
        let sealed = try cipher.seal(Data("x".utf8), associatedData: name)
        #expect(try again.open(sealed, associatedData: name) == Data("x".utf8))
    }

    @Test func concurrentUseIsSafe() async throws {
        let cipher = self.cipher
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0..<16 {
                group.addTask {
                    for i in 0..<200 {
                        let plain = Data(repeating: UInt8(truncatingIfNeeded: t &* 31 &+ i), count: 1000 + i)
                        let ad = Data("\(t)-\(i)".utf8)
                        let sealed = try cipher.seal(plain, associatedData: ad)
                        #expect(try cipher.open(sealed, associatedData: ad) == plain)
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
