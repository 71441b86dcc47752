import Foundation
import PictorCore

/// A deterministic ``/PictorCore/CacheKeyHashing`` for tests of the core, which has no hash function of its
/// own: two 64-bit FNV-1a digests of the key's UTF-8 bytes, as 32 lowercase hex characters.
/// Distinct for the keys tests use; not a cryptographic hash (production uses SHA-256).
public struct TestKeyHashing: CacheKeyHashing {
    /// Creates the hasher.
    public init() {}

    /// The two digests of `key`, in hex.
    public func digest(for key: String) -> String {
        func fnv(_ basis: UInt64) -> UInt64 {
            key.utf8.reduce(basis) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        }
        return [fnv(0xcbf2_9ce4_8422_2325), fnv(0x84222325_cbf29ce4)]
            .map { String($0, radix: 16).leftPadded(to: 16) }.joined()
    }
}

private extension String {
    func leftPadded(to count: Int) -> String { String(repeating: "0", count: max(0, count - self.count)) + self }
}
