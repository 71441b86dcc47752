/// A cache key with its hash value computed once, outside the cache's lock.
///
/// The index dictionary hashes only the stored `Int`, so a dictionary probe, and the re-hashing
/// of neighbours that a deletion from Swift's open-addressed `Dictionary` does, never re-hash a
/// long `String` key; an eviction removes its key without hashing it again.
@usableFromInline
struct LRUKey<Key: Hashable>: Hashable {
    @usableFromInline let key: Key
    @usableFromInline let hash: Int

    @inlinable
    init(_ key: Key) {
        self.key = key
        self.hash = key.hashValue
    }

    @inlinable
    static func == (lhs: LRUKey, rhs: LRUKey) -> Bool { lhs.hash == rhs.hash && lhs.key == rhs.key }

    @inlinable
    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
}

extension LRUKey: Sendable where Key: Sendable {}
