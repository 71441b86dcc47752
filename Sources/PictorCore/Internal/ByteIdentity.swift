import Foundation

/// Byte-exact identity for the strings that key caches and shared work.
///
/// `String`'s `==` and hash are Unicode canonical equivalence: "é" as U+00E9 equals
/// "e" + U+0301. Keys (URLs, cache-key hook results, processor identifiers) are bytes: two
/// spellings may name two resources, and the disk cache names files by hashing the bytes, so a
/// memory entry or a shared job must never answer for a key that is only equivalent. Comparing
/// the UTF-8 bytes is also cheaper than canonical comparison: one `memcmp`, no allocation.
extension String {
    /// Whether `self` and `other` have the same UTF-8 bytes.
    @inlinable
    func hasSameBytes(as other: String) -> Bool {
        let count = utf8.count
        guard count == other.utf8.count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                count == 0 || memcmp(mine.baseAddress!, theirs.baseAddress!, count) == 0
            }
        }
        if case let same?? = compared { return same }
        return utf8.elementsEqual(other.utf8)
    }

    /// Feeds the UTF-8 bytes (and their count, so that consecutive strings cannot run into
    /// each other) to `hasher`.
    @inlinable
    func hashBytes(into hasher: inout Hasher) {
        hasher.combine(utf8.count)
        let done: Void? = utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if done == nil { for byte in utf8 { hasher.combine(byte) } }
    }
}

/// A string as a dictionary or set key by its UTF-8 bytes (see `String.hasSameBytes(as:)`).
struct ByteString: Hashable, Sendable {
    let value: String

    init(_ value: String) { self.value = value }

    static func == (lhs: ByteString, rhs: ByteString) -> Bool { lhs.value.hasSameBytes(as: rhs.value) }

    func hash(into hasher: inout Hasher) { value.hashBytes(into: &hasher) }
}
