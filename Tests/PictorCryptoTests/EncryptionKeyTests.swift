import Foundation
import Testing
import PictorCrypto
#if canImport(Glibc)
import Glibc
#endif

@Suite struct EncryptionKeyTests {
    let raw = (0..<32).map { UInt8($0) }

    func code(_ body: () throws -> Void) -> CryptoError.Code? {
        do { try body(); return nil } catch let e as CryptoError { return e.code } catch { return nil }
    }

    func file(_ contents: Data, mode: mode_t) throws -> String {
        let path = try makeTemporaryDirectory().appendingPathComponent("key").path
        #expect(FileManager.default.createFile(atPath: path, contents: contents))
        #expect(chmod(path, mode) == 0)
        return path
    }

    @Test func rawBytesMustBe32() throws {
        #expect(code { _ = try EncryptionKey(bytes: [UInt8](repeating: 0, count: 31)) } == .invalidKeyLength)
        #expect(code { _ = try EncryptionKey(bytes: [UInt8](repeating: 0, count: 33)) } == .invalidKeyLength)
        #expect(code { _ = try EncryptionKey(bytes: [UInt8]()) } == .invalidKeyLength)
        let key = try EncryptionKey(bytes: raw)
        key.withUnsafeBytes { #expect(Array($0) == raw) }
    }

    @Test func generateIsRandom() throws {
        #expect(try EncryptionKey.generate() != EncryptionKey.generate())
    }

    @Test func descriptionIsRedacted() throws {
        let key = try EncryptionKey(bytes: raw)
        #expect(!"\(key)".contains("0001"))
        #expect("\(key)" == "EncryptionKey(256 bits, redacted)")
    }

    @Test func encodedForms() throws {
        let key = try EncryptionKey(bytes: raw)
        #expect(try EncryptionKey(encoded: Hex.encode(raw)) == key)
        #expect(try EncryptionKey(encoded: Hex.encode(raw).uppercased() + "\n") == key)
        #expect(try EncryptionKey(encoded: "  " + Data(raw).base64EncodedString() + "\n") == key)
        #expect(code { _ = try EncryptionKey(encoded: "not a key") } == .invalidKeyEncoding)
        #expect(code { _ = try EncryptionKey(encoded: Hex.encode(raw.prefix(16))) } == .invalidKeyLength)
        #expect(code { _ = try EncryptionKey(encoded: Data(raw.prefix(16)).base64EncodedString()) } == .invalidKeyLength)
    }

    @Test func environmentVariable() throws {
        let key = try EncryptionKey(bytes: raw)
        #expect(try EncryptionKey(environmentVariable: "K", environment: ["K": Hex.encode(raw)]) == key)
        #expect(try EncryptionKey(environmentVariable: "K", environment: ["K": Data(raw).base64EncodedString()]) == key)
        #expect(code { _ = try EncryptionKey(environmentVariable: "K", environment: [:]) } == .environmentVariableMissing)
        #expect(code { _ = try EncryptionKey(environmentVariable: "K", environment: ["K": ""]) } == .environmentVariableMissing)
        #expect(code { _ = try EncryptionKey(environmentVariable: "K", environment: ["K": "zz"]) } == .invalidKeyEncoding)
    }

    @Test func keyFileFormats() throws {
        let key = try EncryptionKey(bytes: raw)
        #expect(try EncryptionKey(contentsOfFile: file(Data(raw), mode: 0o600)) == key)
        #expect(try EncryptionKey(contentsOfFile: file(Data((Hex.encode(raw) + "\n").utf8), mode: 0o400)) == key)
        #expect(try EncryptionKey(contentsOfFile: file(Data(Data(raw).base64EncodedString().utf8), mode: 0o600)) == key)
        #expect(code { _ = try EncryptionKey(contentsOfFile: file(Data("garbage".utf8), mode: 0o600)) } == .invalidKeyEncoding)
        #expect(code { _ = try EncryptionKey(contentsOfFile: file(Data(count: 5000), mode: 0o600)) } == .keyFileAccess)
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660, 0o606, 0o610, 0o601] as [mode_t])
    func looseKeyFileIsRefused(_ mode: mode_t) throws {
        let path = try file(Data(raw), mode: mode)
        #expect(code { _ = try EncryptionKey(contentsOfFile: path) } == .keyFilePermissions)
    }

    @Test func missingOrDirectoryKeyFile() throws {
        let dir = try makeTemporaryDirectory()
        #expect(code { _ = try EncryptionKey(contentsOfFile: dir.appendingPathComponent("none").path) } == .keyFileAccess)
        #expect(chmod(dir.path, 0o700) == 0)
        #expect(code { _ = try EncryptionKey(contentsOfFile: dir.path) } == .keyFileAccess)
    }

    @Test func writeCreatesPrivateFileAndRefusesOverwrite() throws {
        let path = try makeTemporaryDirectory().appendingPathComponent("new.key").path
        let key = try EncryptionKey.generate()
        try key.write(toFile: path)
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try EncryptionKey(contentsOfFile: path) == key)
        #expect(try String(contentsOfFile: path, encoding: .utf8).count == 65)
        #expect(code { try key.write(toFile: path) } == .keyFileAccess)
        #expect(try EncryptionKey(contentsOfFile: path) == key, "the existing file is untouched")
    }
}

/// Found by a newcomer: an all-zero key (64 '0's) was accepted, and messages named Swift APIs
/// (`EncryptionKey(encoded:): expected 64 hex digits…`) instead of reading for an end user.
@Suite struct EncryptionKeyValidationTests {
    func error(_ body: () throws -> Void) -> CryptoError? {
        do { try body(); return nil } catch let e as CryptoError { return e } catch { return nil }
    }

    func keyFile(_ text: String) throws -> String {
        let path = try makeTemporaryDirectory().appendingPathComponent("cache.key").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        #expect(chmod(path, 0o600) == 0)
        return path
    }

    @Test(arguments: [0x00, 0xFF, 0x5A] as [UInt8])
    func keysWhoseBytesAreAllEqualAreRefused(_ byte: UInt8) throws {
        let bytes = [UInt8](repeating: byte, count: 32)
        #expect(error { _ = try EncryptionKey(bytes: bytes) }?.code == .weakKey)
        #expect(error { _ = try EncryptionKey(encoded: Hex.encode(bytes)) }?.code == .weakKey)
        #expect(error { _ = try EncryptionKey(encoded: Data(bytes).base64EncodedString()) }?.code == .weakKey)
        #expect(error { _ = try EncryptionKey(environmentVariable: "K", environment: ["K": Hex.encode(bytes)]) }?.code == .weakKey)
        let path = try keyFile(String(repeating: "0", count: 64) + "\n")
        let fromFile = try #require(error { _ = try EncryptionKey(contentsOfFile: path) })
        #expect(fromFile.code == .weakKey)
        #expect(fromFile.description.hasPrefix("key file '\(path)': "))
        #expect(fromFile.description.contains("all the same"))
    }

    @Test func aKeyWithTwoDistinctBytesIsAccepted() throws {
        var bytes = [UInt8](repeating: 0, count: 32)
        bytes[31] = 1
        _ = try EncryptionKey(bytes: bytes)
    }

    @Test func messagesReadForAnEndUser() throws {
        let path = try keyFile("not a key\n")
        let fromFile = try #require(error { _ = try EncryptionKey(contentsOfFile: path) })
        #expect(fromFile.description == "key file '\(path)': expected 64 hexadecimal digits or base64 of 32 bytes")
        let fromEnvironment = try #require(error { _ = try EncryptionKey(environmentVariable: "PICTOR_CACHE_KEY", environment: ["PICTOR_CACHE_KEY": "zz"]) })
        #expect(fromEnvironment.description == "environment variable PICTOR_CACHE_KEY: expected 64 hexadecimal digits or base64 of 32 bytes")
        let missing = try #require(error { _ = try EncryptionKey(environmentVariable: "PICTOR_CACHE_KEY", environment: [:]) })
        #expect(missing.description == "environment variable PICTOR_CACHE_KEY: not set")
        let short = try #require(error { _ = try EncryptionKey(encoded: Hex.encode([UInt8](1...16))) })
        #expect(short.description == "key: expected 64 hexadecimal digits (32 bytes), got 32")
        let shortBase64 = try #require(error { _ = try EncryptionKey(encoded: Data(1...16).base64EncodedString()) })
        #expect(shortBase64.description == "key: expected 32 bytes (256 bits), got 16")
        // 32 hex digits are 32 bytes: read as a short hex key, not as 32 raw bytes.
        let shortFile = try keyFile(Hex.encode([UInt8](1...16)))
        #expect(error { _ = try EncryptionKey(contentsOfFile: shortFile) }?.description
                == "key file '\(shortFile)': expected 64 hexadecimal digits (32 bytes), got 32")
        let loose = try keyFile(Hex.encode([UInt8](1...32)))
        #expect(chmod(loose, 0o644) == 0)
        #expect(error { _ = try EncryptionKey(contentsOfFile: loose) }?.description
                == "key file '\(loose)': mode 644 lets group or others access it; run chmod 600 '\(loose)'")
        let absent = loose + ".absent"
        #expect(error { _ = try EncryptionKey(contentsOfFile: absent) }?.description == "key file '\(absent)': No such file or directory")
        for e in [fromFile, fromEnvironment, missing, short, shortBase64] { #expect(!e.description.contains("EncryptionKey(")) }
    }
}
