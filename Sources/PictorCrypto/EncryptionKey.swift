import Foundation
internal import COpenSSL

/// A 256-bit secret key, kept in memory that is wiped (`OPENSSL_cleanse`) when the last copy of
/// the key is released.
///
/// Build one from raw bytes, from a key file (``init(contentsOfFile:)``: mode `0600` or
/// stricter, holding 32 raw bytes, 64 hex digits or base64), from an environment variable
/// (``init(environmentVariable:environment:)``: hex or base64), or ``generate()`` a fresh
/// one from OpenSSL's CSPRNG (`RAND_bytes`).
///
/// ```swift
/// let key = try EncryptionKey(contentsOfFile: "/etc/pictor/cache.key")
/// let encryption = try DiskCacheEncryption(masterKey: key)
/// ```
///
/// Named `EncryptionKey` rather than `SymmetricKey` (its name before 0.4) so that a program
/// importing both Pictor and swift-crypto's `Crypto` (or CryptoKit) can name either type without
/// qualifying it; the old name remains as a deprecated alias.
///
/// - Important: The value is immutable and `Sendable`; copies share one wiped-on-release buffer.
///   Swift cannot promise that no copy of a secret ever lands elsewhere in memory (temporary
///   buffers used while decoding text are overwritten, but the allocator and the kernel may still
///   hold stale pages), so this is "zeroed as far as Swift allows". The key is never printed:
///   `description` is redacted.
public struct EncryptionKey: Sendable, Equatable, CustomStringConvertible {
    /// The key length in bytes (32, i.e. 256 bits).
    public static let byteCount = 32

    let storage: KeyStorage

    /// A key holding a copy of `bytes`.
    ///
    /// - Parameter bytes: Exactly ``byteCount`` (32) bytes, not all equal.
    /// - Throws: ``CryptoError/Code/invalidKeyLength`` for any other length;
    ///   ``CryptoError/Code/weakKey`` when the 32 bytes are all the same (all zeros, a filled
    ///   placeholder): such a key is a typo or a template, never a secret.
    public init<D: ContiguousBytes>(bytes: D) throws(CryptoError) {
        let storage = KeyStorage()
        let count = bytes.withUnsafeBytes { source -> Int in
            guard source.count == Self.byteCount else { return source.count }
            storage.bytes.copyMemory(from: source)
            return source.count
        }
        guard count == Self.byteCount else {
            throw CryptoError(.invalidKeyLength, operation: Self.operation,
                              message: "expected \(Self.byteCount) bytes (256 bits), got \(count)")
        }
        guard storage.bytes.contains(where: { $0 != storage.bytes[0] }) else {
            throw CryptoError(.weakKey, operation: Self.operation, message:
                "its \(Self.byteCount) bytes are all the same (for example all zeros); use a random key, such as one made by `pictor cache key generate`")
        }
        self.storage = storage
    }

    /// A key from `bytes` without the all-equal check: only for published test vectors
    /// (NIST GCM test cases 13–16 use the all-zero key).
    init(knownAnswerBytes bytes: [UInt8]) {
        precondition(bytes.count == Self.byteCount)
        storage = KeyStorage()
        storage.bytes.copyBytes(from: bytes)
    }

    /// The ``CryptoError/operation`` of key errors without a source: `"key"`; key files and
    /// environment variables replace it with their own name (see ``CryptoError/naming(_:)``).
    static let operation = "key"

    init(storage: KeyStorage) { self.storage = storage }

    /// A fresh random key from OpenSSL's CSPRNG (`RAND_bytes`).
    ///
    /// - Throws: ``CryptoError/Code/library`` if the generator is not seeded or fails.
    public static func generate() throws(CryptoError) -> EncryptionKey {
        let storage = KeyStorage()
        guard RAND_bytes(storage.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self),
                         Int32(byteCount)) == 1 else {
            throw CryptoError.openSSL("RAND_bytes")
        }
        return EncryptionKey(storage: storage)
    }

    /// A key from its text form: 64 hexadecimal digits (either case) or standard base64 of 32
    /// bytes; surrounding white space and newlines are ignored.
    ///
    /// - Parameter text: the key as 64 hexadecimal digits or base64 of 32 bytes.
    /// - Throws: ``CryptoError/Code/invalidKeyEncoding`` when `text` is neither;
    ///   ``CryptoError/Code/invalidKeyLength`` when it decodes to other than 32 bytes;
    ///   ``CryptoError/Code/weakKey`` when the 32 bytes are all equal (e.g. 64 `0`s).
    public init(encoded text: String) throws(CryptoError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if Self.isHexDigits(trimmed) && trimmed.utf8.count != 2 * Self.byteCount {
            // Never valid base64 of 32 bytes (that ends in "="): a hex key of the wrong length.
            throw CryptoError(.invalidKeyLength, operation: Self.operation,
                              message: "expected 64 hexadecimal digits (\(Self.byteCount) bytes), got \(trimmed.utf8.count)")
        }
        if trimmed.utf8.count == 2 * Self.byteCount, var decoded = Hex.decode(trimmed) {
            defer { decoded.withUnsafeMutableBytes { wipe($0) } }
            try self.init(bytes: decoded)
        } else if var decoded = Data(base64Encoded: trimmed) {
            defer { decoded.withUnsafeMutableBytes { wipe($0) } }
            try self.init(bytes: decoded)
        } else {
            throw CryptoError(.invalidKeyEncoding, operation: Self.operation,
                              message: "expected 64 hexadecimal digits or base64 of \(Self.byteCount) bytes")
        }
    }

    /// Whether `text` is non-empty and only hexadecimal digits (either case).
    static func isHexDigits(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isHexDigit)
    }

    /// Whether `byte` is an ASCII hexadecimal digit (either case).
    static func isHexDigit(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
    }

    /// A key from the environment variable `name` (64 hex digits or base64 of 32 bytes).
    ///
    /// - Parameters:
    ///   - name: The variable's name, e.g. `"PICTOR_CACHE_KEY"`.
    ///   - environment: Where to look; the process environment by default (tests inject one).
    /// - Throws: ``CryptoError/Code/environmentVariableMissing`` when it is unset or empty;
    ///   otherwise as ``init(encoded:)``.
    public init(environmentVariable name: String,
                environment: [String: String] = ProcessInfo.processInfo.environment) throws(CryptoError) {
        let source = "environment variable \(name)"
        guard let text = environment[name], !text.isEmpty else {
            throw CryptoError(.environmentVariableMissing, operation: source, message: "not set")
        }
        let key: EncryptionKey
        do {
            key = try EncryptionKey(encoded: text)
        } catch {
            throw error.naming(source)
        }
        self = key
    }

    /// Calls `body` with the 32 key bytes.
    ///
    /// - Important: Do not copy the bytes out of `body`; the buffer is only valid inside it.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(storage.bytes))
    }

    /// Constant-time comparison (`CRYPTO_memcmp`).
    public static func == (lhs: EncryptionKey, rhs: EncryptionKey) -> Bool {
        CRYPTO_memcmp(lhs.storage.bytes.baseAddress, rhs.storage.bytes.baseAddress, byteCount) == 0
    }

    /// `"EncryptionKey(256 bits, redacted)"`: the key itself is never printed.
    public var description: String { "EncryptionKey(256 bits, redacted)" }
}

/// The name ``EncryptionKey`` had before 0.4; it clashed with swift-crypto's and CryptoKit's
/// `SymmetricKey` in files that import both. Code written for 0.3 keeps compiling, with a
/// deprecation warning that offers the fix-it.
@available(*, deprecated, renamed: "EncryptionKey")
public typealias SymmetricKey = EncryptionKey

/// Overwrites `buffer` with zeros in a way the optimiser may not remove.
func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    OPENSSL_cleanse(base, buffer.count)
}

/// The owner of a key's bytes: allocated once, never written after initialisation, wiped and
/// freed in `deinit`.
///
/// `@unchecked Sendable` because a raw pointer is not `Sendable`; it is safe here because the
/// buffer is written only before the storage is shared (in the initialisers of
/// ``EncryptionKey``) and is read-only afterwards, and it is freed only when no reference is left.
final class KeyStorage: @unchecked Sendable {
    let bytes: UnsafeMutableRawBufferPointer

    init(count: Int = EncryptionKey.byteCount) {
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        wipe(bytes)
        bytes.deallocate()
    }
}
