import Foundation
import PictorCore

/// Which key setting a cache directory's entries are written under, as recorded in its index
/// (`settings.key_check`): `"plain"`, or `"cipher:"` and the hex ``DataCipher/keyIdentifier``
/// (a non-secret value derived from the key, never the key).
///
/// Only the cipher is recorded, not the ``CacheKeyHashing``: with ``DiskCacheEncryption`` both
/// come from one master key, so the cipher's identifier names the pair.
struct KeyCheck: Sendable, Hashable {
    let recorded: String

    init(recorded: String) { self.recorded = recorded }

    /// The setting of `cipher` (`nil`: plain files).
    init(_ cipher: (any DataCipher)?) {
        guard let cipher else {
            recorded = "plain"
            return
        }
        recorded = "cipher:" + cipher.keyIdentifier.map { String(format: "%02x", $0) }.joined()
    }

    var isEncrypted: Bool { recorded != "plain" }

    /// Whether the record is one this build writes: `plain`, or `cipher:` and an even number of
    /// lowercase hex characters (at most 1,024). Anything else is damage, not a setting.
    var isWellFormed: Bool {
        if recorded == "plain" { return true }
        guard recorded.hasPrefix("cipher:") else { return false }
        let hex = recorded.utf8.dropFirst(7)
        return hex.count <= 1_024 && hex.count % 2 == 0
            && hex.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// How a cache recorded as `self` differs from the `configured` setting.
    func mismatch(configured: KeyCheck) -> DiskCacheError.KeyMismatch? {
        if self == configured { return nil }
        if !isEncrypted { return .notEncrypted }
        return configured.isEncrypted ? .anotherKey : .keyRequired
    }
}
