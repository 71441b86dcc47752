import Foundation
import PictorCore

/// Names cache entries by HMAC-SHA256 of the cache key under a secret name key, in lowercase hex
/// (64 characters): the file names and index keys of an encrypted disk cache.
///
/// Unlike a plain SHA-256 (``SHA256KeyHashing``), nobody without the key can test a guessed URL
/// against the directory listing; the same key maps to the same name only under the same name
/// key.
///
/// - Important: Thread-safe; each call works on its own copy of a pre-keyed context.
public struct HMACKeyHashing: CacheKeyHashing, Sendable {
    private let mac: HMACSHA256

    /// A hasher keyed with `nameKey` (use ``DiskCacheEncryption/keyHashing``, which derives it
    /// from the master key, rather than the master key itself).
    ///
    /// - Parameter nameKey: the 256-bit name key.
    /// - Throws: ``CryptoError/Code/library`` if libcrypto cannot set up HMAC.
    public init(nameKey: EncryptionKey) throws(CryptoError) {
        mac = try HMACSHA256(key: nameKey)
    }

    /// The hex HMAC-SHA256 of the key's UTF-8 bytes (64 characters).
    ///
    /// - Parameter key: the cache key.
    public func digest(for key: String) -> String {
        var key = key
        return key.withUTF8 { utf8 in
            withUnsafeTemporaryAllocation(byteCount: HMACSHA256.byteCount, alignment: 16) { out in
                mac.authenticationCode(for: UnsafeRawBufferPointer(utf8), into: out)
                return Hex.encode(UnsafeRawBufferPointer(out))
            }
        }
    }
}
