import Foundation

/// Authenticated encryption of disk-cache entries (the core's seam; `PictorCrypto` provides
/// AES-256-GCM on libcrypto).
///
/// ``seal(_:associatedData:)`` returns a self-describing envelope (header, nonce, ciphertext,
/// tag); ``open(_:associatedData:)`` returns the plaintext only when the envelope is authentic
/// for this key and this associated data, and throws otherwise — it never returns an
/// unauthenticated byte.
public protocol DataCipher: Sendable {
    /// A non-secret identifier of the key, derived from it (never the key itself).
    var keyIdentifier: Data { get }
    /// Encrypts and authenticates `plaintext`, binding `associatedData` (e.g. the entry name).
    ///
    /// - Parameters:
    ///   - plaintext: the bytes to protect.
    ///   - associatedData: bytes that are authenticated but not stored, such as the entry name; the
    ///     same bytes are needed to open.
    func seal(_ plaintext: Data, associatedData: Data) throws -> Data
    /// Verifies and decrypts an envelope made by ``seal(_:associatedData:)``.
    ///
    /// - Parameters:
    ///   - envelope: what ``seal(_:associatedData:)`` returned.
    ///   - associatedData: the bytes given to ``seal(_:associatedData:)``.
    func open(_ envelope: Data, associatedData: Data) throws -> Data
}

/// Maps a cache key to the file name and index key of its entry: a lowercase hexadecimal digest,
/// so names are file-system safe and reveal nothing readable about the key.
public protocol CacheKeyHashing: Sendable {
    /// The digest of `key`, lowercase hex, at most 64 characters.
    ///
    /// - Parameter key: the cache key.
    func digest(for key: String) -> String
}
