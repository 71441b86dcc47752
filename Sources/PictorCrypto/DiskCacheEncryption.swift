import Foundation
import PictorCore

/// Everything a disk cache needs to be encrypted at rest, derived from one master key: a
/// ``cipher`` for the entry files and a ``keyHashing`` for their names and index keys.
///
/// Two independent 256-bit keys are derived with HKDF-SHA256 (RFC 5869, empty salt) under
/// distinct labels, so the content key and the name key never coincide and neither reveals the
/// master key:
/// - content key: `info = "pictor.disk-cache.content-key.v1"` → ``AESGCMCipher``;
/// - name key: `info = "pictor.disk-cache.name-key.v1"` → ``HMACKeyHashing``.
///
/// ```swift
/// let encryption = try DiskCacheEncryption(masterKey: try EncryptionKey(contentsOfFile: path))
/// var configuration = DiskCache.Configuration(directory: url)
/// configuration.cipher = encryption.cipher
/// configuration.keyHashing = encryption.keyHashing
/// ```
public struct DiskCacheEncryption: Sendable {
    /// HKDF `info` label of the content (AES-256-GCM) key.
    public static let contentKeyLabel = "pictor.disk-cache.content-key.v1"
    /// HKDF `info` label of the name (HMAC-SHA256) key.
    public static let nameKeyLabel = "pictor.disk-cache.name-key.v1"

    /// Seals and opens entry files with the derived content key.
    public let cipher: AESGCMCipher
    /// Names entries (files and index rows) with HMAC-SHA256 under the derived name key.
    public let keyHashing: HMACKeyHashing

    /// Derives the content and name keys from `masterKey`.
    ///
    /// - Parameter masterKey: the cache's 256-bit master key.
    /// - Throws: ``CryptoError/Code/library`` when libcrypto fails.
    public init(masterKey: EncryptionKey) throws(CryptoError) {
        try self.init(masterKey: masterKey, contentKeyLabel: Self.contentKeyLabel, nameKeyLabel: Self.nameKeyLabel)
    }

    /// Derives the content and name keys from `masterKey` under other labels, so that another
    /// store sealed with the same master key (the shared fleet tier) uses keys of its own.
    ///
    /// - Parameters:
    ///   - masterKey: the 256-bit master key.
    ///   - contentKeyLabel: the HKDF `info` label of the content (AES-256-GCM) key.
    ///   - nameKeyLabel: the HKDF `info` label of the name (HMAC-SHA256) key.
    /// - Throws: ``CryptoError/Code/library`` when libcrypto fails.
    public init(masterKey: EncryptionKey, contentKeyLabel: String, nameKeyLabel: String) throws(CryptoError) {
        let contentKey = try HKDFSHA256.deriveKey(from: masterKey, info: Data(contentKeyLabel.utf8))
        let nameKey = try HKDFSHA256.deriveKey(from: masterKey, info: Data(nameKeyLabel.utf8))
        cipher = try AESGCMCipher(key: contentKey)
        keyHashing = try HMACKeyHashing(nameKey: nameKey)
    }

    /// The non-secret identifier of the content key (``AESGCMCipher/keyIdentifier``, 8 bytes):
    /// tells which master key sealed a cache without revealing it.
    public var keyIdentifier: Data { cipher.keyIdentifier }
}
