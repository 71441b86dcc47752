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

    /// How a cache recorded as `self` differs from the `configured` setting.
    func mismatch(configured: KeyCheck) -> DiskCacheError.KeyMismatch? {
        if self == configured { return nil }
        if !isEncrypted { return .notEncrypted }
        return configured.isEncrypted ? .anotherKey : .keyRequired
    }
}
