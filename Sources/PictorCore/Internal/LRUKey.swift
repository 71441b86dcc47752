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

    /// What `Dictionary` asks for: the stored hash, already a seeded SipHash of the key, mixed
    /// with the dictionary's per-instance seed by one cheap finalizer instead of a second full
    /// `Hasher` round (about a third of a memory hit's cost).
    @inlinable
    func _rawHashValue(seed: Int) -> Int { HashMixing.mix(hash ^ seed) }
}

/// Spreads the bits of an already well-mixed hash (MurmurHash3's 64-bit finalizer), so that a
/// precomputed hash combined with a seed fills every bucket of a hash table evenly.
@usableFromInline
enum HashMixing {
    @inlinable
    static func mix(_ value: Int) -> Int {
        var x = UInt64(bitPattern: Int64(value))
        x ^= x >> 33
        x &*= 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        x &*= 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return Int(Int64(bitPattern: x))
    }
}

extension LRUKey: Sendable where Key: Sendable {}
