import Foundation

/// A store of encoded bytes by key: the disk-cache layer.
///
/// Reads are synchronous and fast; writes may be staged and done in the background, but a stored
/// value is readable at once (read-your-writes). Keys are opaque strings of any length and any
/// Unicode; implementations never use them as file names directly.
public protocol DataCaching: Sendable {
    /// The bytes and metadata stored for `key`, or `nil` on a miss. An entry past
    /// ``DataCacheMetadata/expiresAt`` is still returned (HTTP revalidation needs it); callers
    /// check freshness.
    ///
    /// - Parameter key: the cache key (by default the image URL).
    func entry(for key: String) -> DataCacheEntry?
    /// The metadata stored for `key`, or `nil` on a miss, reading as little as the store can
    /// (the pipeline warms the disk with it: a fresh entry needs no bytes read). As with
    /// ``entry(for:)``, an expired entry is returned. The default implementation reads the
    /// whole entry.
    ///
    /// - Parameter key: the cache key.
    func metadata(for key: String) -> DataCacheMetadata?
    /// Whether an entry exists for `key`, without reading it.
    ///
    /// - Parameter key: the cache key.
    func contains(_ key: String) -> Bool
    /// Stores `data` for `key`, replacing any previous entry.
    ///
    /// - Parameters:
    ///   - data: the bytes to store, as they are.
    ///   - key: the cache key.
    ///   - metadata: validators, freshness, format and user data stored with the bytes.
    func store(_ data: Data, for key: String, metadata: DataCacheMetadata)
    /// Stores `data` for `key` as made from the entry of `source` (a processed variant or an
    /// encoded result, and the original's key), so that a store that relates entries can
    /// remove a source with everything made from it. The default implementation ignores
    /// `source` and calls ``store(_:for:metadata:)``.
    ///
    /// - Parameters:
    ///   - data: the bytes to store, as they are.
    ///   - key: the cache key.
    ///   - metadata: as for ``store(_:for:metadata:)``.
    ///   - source: the cache key of the entry `data` was made from; `nil` for an original.
    func store(_ data: Data, for key: String, metadata: DataCacheMetadata, source: String?)
    /// Replaces the metadata of an existing entry (after an HTTP 304); no-op on a miss.
    ///
    /// - Parameters:
    ///   - metadata: the new metadata.
    ///   - key: the cache key.
    func updateMetadata(_ metadata: DataCacheMetadata, for key: String)
    /// Removes the entry for `key`, if any.
    ///
    /// - Parameter key: the cache key.
    func removeData(for key: String)
    /// Removes every entry.
    func removeAll()
    /// Whether the store can serve and store entries now, from a cheap check that writes
    /// nothing and takes no lock for long (a health endpoint calls it). The default
    /// implementation says ``TierHealth/usable``.
    var health: TierHealth { get }
    /// Waits until every write accepted so far is stored, for a process about to exit: a
    /// store that writes in the background (`PictorDiskCache`'s `DiskCache` does) would
    /// otherwise lose the last ones. Blocks the calling thread. The default implementation
    /// returns at once.
    func flush()
}

extension DataCaching {
    /// ``TierHealth/usable``: a store with nothing to check.
    public var health: TierHealth { .usable }

    /// Returns at once: a store that writes synchronously has nothing to wait for.
    public func flush() {}

    /// The metadata of ``entry(for:)``.
    ///
    /// - Parameter key: the cache key.
    public func metadata(for key: String) -> DataCacheMetadata? { entry(for: key)?.metadata }

    /// The bytes stored for `key`, or `nil` on a miss.
    ///
    /// - Parameter key: the cache key.
    public func data(for key: String) -> Data? { entry(for: key)?.data }
    /// Stores `data` with empty metadata.
    ///
    /// - Parameters:
    ///   - data: the bytes to store.
    ///   - key: the cache key.
    public func store(_ data: Data, for key: String) { store(data, for: key, metadata: DataCacheMetadata()) }

    /// ``store(_:for:metadata:)``, the relation to `source` dropped.
    ///
    /// - Parameters:
    ///   - data: the bytes to store.
    ///   - key: the cache key.
    ///   - metadata: what is stored with them.
    ///   - source: ignored.
    public func store(_ data: Data, for key: String, metadata: DataCacheMetadata, source: String?) {
        store(data, for: key, metadata: metadata)
    }
}

/// One entry read from a ``DataCaching`` store.
public struct DataCacheEntry: Sendable, Hashable {
    /// The stored bytes, exactly as written.
    public var data: Data
    /// What was stored with them.
    public var metadata: DataCacheMetadata

    /// Creates an entry.
    public init(data: Data, metadata: DataCacheMetadata) {
        self.data = data
        self.metadata = metadata
    }
}

/// What the disk cache keeps beside the bytes of an entry: HTTP validators and freshness, the
/// detected format, and a small user blob. It never holds a URL.
public struct DataCacheMetadata: Sendable, Hashable, Codable {
    /// The response's `ETag` header, verbatim (RFC 9110 §8.8.3).
    public var etag: String?
    /// The response's `Last-Modified` header, verbatim (RFC 9110 §8.8.2).
    public var lastModified: String?
    /// The response's `Cache-Control` header, verbatim (RFC 9111 §5.2).
    public var cacheControl: String?
    /// When the entry stops being fresh under HTTP rules (RFC 9111 §4.2); `nil` when the response
    /// gave no freshness information.
    public var expiresAt: Date?
    /// The image format sniffed from the bytes.
    public var format: ImageFormat?
    /// A small caller-defined blob (at most a few kB).
    public var userInfo: Data?
    /// The response's `Vary` header, verbatim (RFC 9110 §12.5.5), when it names anything but
    /// `Accept-Encoding` (bodies are stored decoded): such an entry answers only a request whose
    /// values of the named fields are those of the request it was stored for (``varyKey``), and
    /// never when it names `*`.
    public var vary: String?
    /// The digest of the request's values of the fields ``vary`` names, as the pipeline's
    /// ``ImagePipeline/Configuration/varyKeyHashing`` made it (never the values themselves: they
    /// may be credentials or cookies); `nil` without ``vary``. An entry with ``vary`` and no key
    /// matches no request.
    public var varyKey: String?
    /// When the entry stops being fresh for a shared cache (RFC 9111 §4.2.1): as ``expiresAt``,
    /// except that `s-maxage` comes first; `nil` when the response gave no freshness
    /// information. The shared fleet tier, and every tier of a pipeline whose
    /// ``ImagePipeline/Configuration/cacheScope`` is ``CacheScope/shared``, judge freshness by it.
    public var sharedExpiresAt: Date?
    /// For bytes the pipeline encoded itself (a processed variant): the quality they were
    /// encoded at (1...100, meaningful for lossy formats); `nil` for downloaded bytes.
    public var encodingQuality: Int?
    /// For bytes the pipeline encoded itself (a processed variant): the image's width in
    /// pixels; `nil` for downloaded bytes.
    public var pixelWidth: Int?
    /// For bytes the pipeline encoded itself (a processed variant): the image's height in
    /// pixels; `nil` for downloaded bytes.
    public var pixelHeight: Int?

    /// Creates metadata; every field defaults to `nil`.
    public init(
        etag: String? = nil, lastModified: String? = nil, cacheControl: String? = nil,
        expiresAt: Date? = nil, format: ImageFormat? = nil, userInfo: Data? = nil, vary: String? = nil,
        varyKey: String? = nil, sharedExpiresAt: Date? = nil, encodingQuality: Int? = nil, pixelWidth: Int? = nil,
        pixelHeight: Int? = nil
    ) {
        self.etag = etag
        self.lastModified = lastModified
        self.cacheControl = cacheControl
        self.expiresAt = expiresAt
        self.format = format
        self.userInfo = userInfo
        self.vary = vary
        self.varyKey = varyKey
        self.sharedExpiresAt = sharedExpiresAt
        self.encodingQuality = encodingQuality
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
    }
}
