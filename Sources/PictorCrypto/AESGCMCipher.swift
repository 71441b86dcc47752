import Foundation
import PictorCore
internal import COpenSSL

/// AES-256-GCM (NIST SP 800-38D) authenticated encryption of disk-cache entries, on libcrypto
/// (AES-NI + PCLMULQDQ where the CPU has them): the default ``/PictorCore/DataCipher`` of an encrypted
/// `DiskCache`.
///
/// Each ``seal(_:associatedData:)`` produces a self-describing, versioned envelope:
///
/// | offset | bytes | field |
/// | --- | --- | --- |
/// | 0 | 4 | magic `"PXCE"` (`50 58 43 45`) |
/// | 4 | 1 | format version (`1`) |
/// | 5 | 8 | key identifier (``keyIdentifier``; HKDF of the key, not the key) |
/// | 13 | 12 | nonce: 96 random bits (`RAND_bytes`), fresh for every seal |
/// | 25 | n | ciphertext, as long as the plaintext |
/// | 25 + n | 16 | GCM tag (128 bits) |
///
/// The overhead is ``overheadByteCount`` (41) bytes per entry. The additional authenticated data
/// is the 13-byte header (magic, version, key identifier) followed by the caller's associated
/// data (the disk cache passes the entry's digest name), so an envelope that is altered, moved to
/// another name, or sealed under another key fails to open. Random 96-bit nonces keep the
/// collision risk under 2⁻³² up to 2³² seals per key (SP 800-38D §8.3); rotate long before that.
///
/// ```swift
/// let cipher = try AESGCMCipher(key: try EncryptionKey.generate())
/// let sealed = try cipher.seal(Data("hello".utf8), associatedData: Data("name".utf8))
/// let plain = try cipher.open(sealed, associatedData: Data("name".utf8))
/// ```
///
/// - Important: Thread-safe. Keyed OpenSSL contexts are kept in a small pool and reused (the key
///   schedule is computed once per context; each call only sets a new nonce), so concurrent calls
///   never share a context.
public struct AESGCMCipher: DataCipher, Sendable {
    /// The magic bytes that start every envelope: ASCII `"PXCE"`.
    public static let magic: [UInt8] = [0x50, 0x58, 0x43, 0x45]
    /// The envelope format version this build writes and reads (1).
    public static let formatVersion: UInt8 = 1
    /// Length of ``keyIdentifier`` in bytes (8).
    public static let keyIdentifierByteCount = 8
    /// Length of the header (magic, version, key identifier) in bytes (13).
    public static let headerByteCount = 4 + 1 + keyIdentifierByteCount
    /// Length of the nonce in bytes (12, i.e. 96 bits).
    public static let nonceByteCount = 12
    /// Length of the GCM tag in bytes (16, i.e. 128 bits).
    public static let tagByteCount = 16
    /// Bytes an envelope adds to its plaintext: header + nonce + tag = 41.
    public static let overheadByteCount = headerByteCount + nonceByteCount + tagByteCount

    /// HKDF-SHA256 `info` label for the key identifier.
    static let keyIdentifierInfo = Data("pictor.aes-256-gcm.key-id.v1".utf8)

    /// A non-secret identifier of the key: the first 8 bytes of HKDF-SHA256(key,
    /// info: `"pictor.aes-256-gcm.key-id.v1"`). Equal keys give equal identifiers; it reveals
    /// nothing usable about the key.
    public let keyIdentifier: Data
    let header: [UInt8]
    let contexts: GCMContextPool

    /// A cipher for `key`.
    ///
    /// - Parameter key: the 256-bit content key (derive it with ``DiskCacheEncryption`` rather than
    ///   passing a master key).
    /// - Throws: ``CryptoError/Code/library`` when libcrypto has no AES-256-GCM or cannot key a
    ///   context.
    public init(key: EncryptionKey) throws(CryptoError) {
        let id = try key.withUnsafeBytes { bytes throws(CryptoError) in
            try HKDFSHA256.deriveBytes(inputKeyMaterial: bytes, salt: [UInt8](), info: Self.keyIdentifierInfo,
                                       outputByteCount: Self.keyIdentifierByteCount)
        }
        keyIdentifier = Data(id)
        header = Self.magic + [Self.formatVersion] + id
        contexts = try GCMContextPool(key: key)
    }

    /// Encrypts and authenticates `plaintext` into a new envelope with a fresh random nonce.
    ///
    /// - Parameters:
    ///   - plaintext: Any length, including empty.
    ///   - associatedData: Authenticated, not encrypted, not stored (e.g. the entry's name); the
    ///     same bytes must be passed to ``open(_:associatedData:)``.
    /// - Returns: The envelope: `plaintext.count + 41` bytes.
    /// - Throws: ``CryptoError/Code/library`` when `RAND_bytes` or the cipher fails.
    public func seal(_ plaintext: Data, associatedData: Data) throws(CryptoError) -> Data {
        let total = plaintext.count + Self.overheadByteCount
        let out = UnsafeMutableRawBufferPointer.allocate(byteCount: total, alignment: 16)
        let failure = plaintext.withUnsafeBytes { input in
            associatedData.withUnsafeBytes { aad in
                Result { () throws(CryptoError) in try sealInto(out, plaintext: input, associatedData: aad) }
            }
        }
        if case .failure(let error) = failure {
            out.deallocate()
            throw error
        }
        return Data(bytesNoCopy: out.baseAddress!, count: total, deallocator: .custom { p, _ in p.deallocate() })
    }

    /// Verifies and decrypts an envelope made by ``seal(_:associatedData:)`` with this key.
    ///
    /// No plaintext byte is returned unless the whole envelope authenticates; on failure the
    /// decrypted buffer is wiped before it is freed.
    ///
    /// - Throws: ``CryptoError/Code/malformedEnvelope`` (shorter than 41 bytes or wrong magic),
    ///   ``CryptoError/Code/unsupportedVersion``, ``CryptoError/Code/keyMismatch`` (sealed under
    ///   another key), ``CryptoError/Code/authenticationFailed`` (any altered byte or other
    ///   associated data), ``CryptoError/Code/library``.
    public func open(_ envelope: Data, associatedData: Data) throws(CryptoError) -> Data {
        let count = envelope.count - Self.overheadByteCount
        guard count >= 0 else {
            throw CryptoError(.malformedEnvelope, operation: "AESGCMCipher.open",
                              message: "envelope of \(envelope.count) bytes is shorter than the \(Self.overheadByteCount)-byte overhead")
        }
        // One extra byte so an empty plaintext still has a real allocation.
        let out = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        let failure = envelope.withUnsafeBytes { input in
            associatedData.withUnsafeBytes { aad in
                Result { () throws(CryptoError) in try openInto(out, envelope: input, associatedData: aad) }
            }
        }
        if case .failure(let error) = failure {
            wipe(out)
            out.deallocate()
            throw error
        }
        return Data(bytesNoCopy: out.baseAddress!, count: count, deallocator: .custom { p, _ in p.deallocate() })
    }
}
