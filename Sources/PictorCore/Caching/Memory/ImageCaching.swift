import Foundation

/// The memory-cache layer for decoded images, keyed by ``ImageCacheKey`` (URL or custom key +
/// thumbnail + processors).
public protocol ImageCaching: Sendable {
    /// The image stored for `key`, or `nil` on a miss; a hit refreshes the entry's recency.
    func image(for key: ImageCacheKey) -> Image?
    /// Stores `image` for `key`, evicting least recently used entries over the limits.
    func storeImage(_ image: Image, for key: ImageCacheKey)
    /// Removes the entry for `key`, if any.
    func removeImage(for key: ImageCacheKey)
    /// Removes every entry.
    func removeAll()
}

/// The identity of a decoded, processed image in the memory cache: the request's cache key (the
/// URL, or what the cache-key hook made of it), the thumbnail and the processor chain.
///
/// Keys compare and hash their UTF-8 bytes, not Unicode equivalence: `"caf\u{E9}"` and
/// `"cafe\u{301}"` are two keys (they may name two resources, and the disk cache hashes the
/// bytes too). The hash is computed once at creation, so lookups don't re-hash the long string.
public struct ImageCacheKey: Hashable, Sendable, CustomStringConvertible {
    /// The full key text: `<data key>` followed by `|thumbnail` and `|processor` identifiers.
    public let rawValue: String
    private let precomputedHash: Int

    /// Creates a key from its full text.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
        var hasher = Hasher()
        rawValue.hashBytes(into: &hasher)
        self.precomputedHash = hasher.finalize()
    }

    /// Equal when the full key texts have the same UTF-8 bytes (the precomputed hash is
    /// compared first).
    public static func == (lhs: ImageCacheKey, rhs: ImageCacheKey) -> Bool {
        lhs.precomputedHash == rhs.precomputedHash && lhs.rawValue.hasSameBytes(as: rhs.rawValue)
    }

    /// Feeds the hash computed once at creation.
    public func hash(into hasher: inout Hasher) { hasher.combine(precomputedHash) }

    /// The hash computed once at creation, mixed with `seed` by a cheap finalizer rather than a
    /// second full `Hasher` round: what `Dictionary`, `Set` and `hashValue` use.
    public func _rawHashValue(seed: Int) -> Int { HashMixing.mix(precomputedHash ^ seed) }

    /// A one-line, human-readable description (used in logs and CLI messages).
    public var description: String { rawValue }
}
