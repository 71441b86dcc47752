import Foundation
import PictorCrypto

/// SHA-256 of a cache key's UTF-8 bytes, stored in every entry file (inside the seal when
/// encrypted) and compared on every read, so that a file is served only for the key it was
/// stored under: a file copied, swapped, restored or renamed onto another entry's name is a
/// miss. The file name alone cannot prove that: it is whatever the ``CacheKeyHashing`` made of
/// the key (a custom hashing may collide), and a plain file carries nothing else to check it
/// against.
///
/// Four words rather than an array: comparing two bindings allocates nothing.
package struct KeyBinding: Hashable, Sendable {
    let w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64

    /// Bytes a binding takes in an entry file (`32`).
    static let byteCount = 32

    /// The binding of `key` (one SHA-256 of its UTF-8 bytes: Unicode-equivalent spellings of a
    /// key are different keys, as they are for the file name).
    package init(key: String) {
        var text = key
        let digest = text.withUTF8 { SHA256.hash(UnsafeRawBufferPointer($0)) }
        self = digest.withUnsafeBytes { Self(raw: $0)! }
    }

    /// The binding stored in `raw`; `nil` unless exactly ``byteCount`` bytes.
    init?(raw: UnsafeRawBufferPointer) {
        guard raw.count == Self.byteCount else { return nil }
        w0 = raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self).littleEndian
        w1 = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self).littleEndian
        w2 = raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self).littleEndian
        w3 = raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self).littleEndian
    }

    /// The 32 stored bytes (little-endian words, so `init(raw:)` reads them back).
    package var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(Self.byteCount)
        for word in [w0, w1, w2, w3] { withUnsafeBytes(of: word.littleEndian) { out.append(contentsOf: $0) } }
        return out
    }
}
