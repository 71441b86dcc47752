import Foundation
import PictorCore
import PictorCrypto

/// The keys an encrypted ``DiskCache`` uses right now: how names are derived and how files are
/// sealed. Starts as the configuration's; replaced by ``DiskCache/rotateKey(to:)``.
struct EntryKeys: Sendable {
    var keyHashing: any CacheKeyHashing
    var cipher: (any DataCipher)?

    init(_ configuration: DiskCache.Configuration) {
        keyHashing = configuration.keyHashing
        cipher = configuration.cipher
    }
}

extension DiskCache {
    /// Switches the cache to new keys derived from `encryption` and drops every entry sealed
    /// under the old ones; the cache stays usable throughout.
    ///
    /// ```swift
    /// let next = try DiskCacheEncryption(masterKey: try EncryptionKey(contentsOfFile: newKeyPath))
    /// cache.rotateKey(to: next)
    /// cache.flush()   // optional: wait until the old files are deleted
    /// ```
    ///
    /// **Drop, not re-encrypt — why.** An encrypted cache names entries by HMAC-SHA256 of the
    /// URL under a name key derived from the master key, and by design neither the files nor the
    /// index hold the URL. A new master key gives a new name key, so every entry needs a new name
    /// that only the URL can produce; re-encryption in place could only keep the old names, which
    /// would keep the old name key alive (anyone holding a leaked old key could still test
    /// guessed URLs against the directory), and it would cost a read, an open, a seal and a write
    /// per entry for data that the network can refill. Dropping is O(n) file removals from the
    /// index (no directory scan), cannot half-fail into a mixed-key cache, and survives a crash
    /// (the clear is recorded as intents first, as ``removeAll()``).
    ///
    /// What happens, in order:
    /// 1. New reads and writes use the new keys at once (names from the new
    ///    ``/PictorCrypto/DiskCacheEncryption/keyHashing``, files sealed with the new
    ///    ``/PictorCrypto/DiskCacheEncryption/cipher``); reads miss until entries are stored again.
    /// 2. Every existing entry is removed in the background, exactly as ``removeAll()``. The
    ///    writer always seals with the current key, so once that clear has run (``flush()``
    ///    waits for it) no file sealed under the old key is left.
    /// 3. The index records the new key in the same transaction as the clear, so from then on
    ///    the directory opens only with the new key (``DiskCacheError/keyMismatch(path:_:)``
    ///    otherwise), and a crash leaves either the old key with its entries or the new key
    ///    with the old entries queued for removal.
    ///
    /// - Parameter encryption: The new keys.
    /// - Important: Thread-safe; concurrent reads and writes continue (they miss or store under
    ///   the new keys). ``configuration`` keeps showing the keys the cache was created with.
    ///   Other processes sharing the directory must switch to the new key too: with the old key
    ///   they no longer find the entries written under the new one, and vice versa. A read that
    ///   races with the rotation (name computed under the old key, file opened under the new)
    ///   misses and may count one entry in ``Statistics/corruptEntriesRemoved``; that entry was
    ///   being dropped anyway.
    public func rotateKey(to encryption: DiskCacheEncryption) {
        rotateKey(cipher: encryption.cipher, keyHashing: encryption.keyHashing)
    }

    /// Switches to any cipher and key hashing and drops every existing entry, as
    /// ``rotateKey(to:)``; `cipher: nil` with ``/PictorCrypto/SHA256KeyHashing`` turns encryption off, a
    /// cipher on a plain cache turns it on (and removes the plaintext files). The index records
    /// the new setting with the clear, as in ``rotateKey(to:)``.
    ///
    /// - Parameters:
    ///   - cipher: Seals the entries written from now on; `nil` for plain files.
    ///   - keyHashing: Names the entries from now on.
    public func rotateKey(cipher: (any DataCipher)?, keyHashing: any CacheKeyHashing) {
        // The keys change before the clear is staged: a write racing with this call is either
        // removed by the clear or sealed under the new key by the writer, never left sealed
        // under the old one.
        keys.withLock {
            $0.cipher = cipher
            $0.keyHashing = keyHashing
        }
        removeAll()
        configuration.logger.log(.info, "disk cache keys rotated; entries under the old key are being removed")
    }

    /// The key hashing in use (the configuration's until ``rotateKey(to:)``).
    var currentKeyHashing: any CacheKeyHashing { keys.withLock { $0.keyHashing } }

    /// The cipher in use (the configuration's until ``rotateKey(to:)``).
    var currentCipher: (any DataCipher)? { keys.withLock { $0.cipher } }
}

extension DiskCache.Configuration {
    /// Sets ``cipher`` and ``keyHashing`` from `encryption`: entries sealed with AES-256-GCM
    /// under the derived content key, named by HMAC-SHA256 under the derived name key.
    ///
    /// ```swift
    /// var configuration = DiskCache.Configuration(directory: url)
    /// configuration.encrypt(with: try DiskCacheEncryption(masterKey: key))
    /// ```
    ///
    /// - Parameter encryption: the keys derived from the master key.
    public mutating func encrypt(with encryption: DiskCacheEncryption) {
        cipher = encryption.cipher
        keyHashing = encryption.keyHashing
    }
}
