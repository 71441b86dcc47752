import Foundation
import PictorCore
import PictorCrypto

/// Which key setting a cache directory's entries are written under, as recorded in its index
/// (`settings.key_check`): `"plain"`, or `"cipher:"` and the hex ``DataCipher/keyIdentifier``
/// (a non-secret value derived from the key, never the key). An identifier over
/// ``longestRecordedIdentifier`` bytes (a user's cipher may have one) is recorded as the hex of
/// its SHA-256, so that every record this build writes is well-formed.
///
/// Only the cipher is recorded, not the ``CacheKeyHashing``: with ``DiskCacheEncryption`` both
/// come from one master key, so the cipher's identifier names the pair.
package struct KeyCheck: Sendable, Hashable {
    /// The text stored in the index.
    package let recorded: String

    /// The record as the index holds it (its text, possibly damaged).
    package init(recorded: String) { self.recorded = recorded }

    /// The setting of `cipher` (`nil`: plain files).
    package init(_ cipher: (any DataCipher)?) {
        guard let cipher else {
            recorded = "plain"
            return
        }
        var identifier = cipher.keyIdentifier
        if identifier.count > Self.longestRecordedIdentifier { identifier = Data(SHA256.hash(identifier)) }
        recorded = "cipher:" + identifier.map { String(format: "%02x", $0) }.joined()
    }

    /// The longest key identifier recorded as it is, in bytes (`512`, 1,024 hex characters).
    static let longestRecordedIdentifier = 512

    /// Whether the record names a cipher (anything but `plain`, even a damaged record).
    package var isEncrypted: Bool { recorded != "plain" }

    /// Whether the record is one this build writes: `plain`, or `cipher:` and an even number of
    /// lowercase hex characters (at most 1,024). Anything else is damage, not a setting.
    package var isWellFormed: Bool {
        if recorded == "plain" { return true }
        guard recorded.hasPrefix("cipher:") else { return false }
        let hex = recorded.utf8.dropFirst(7)
        return hex.count <= 1_024 && hex.count % 2 == 0
            && hex.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// How a cache recorded as `self` differs from the `configured` setting.
    package func mismatch(configured: KeyCheck) -> DiskCacheError.KeyMismatch? {
        if self == configured { return nil }
        if !isEncrypted { return .notEncrypted }
        return configured.isEncrypted ? .anotherKey : .keyRequired
    }
}
