import Foundation

/// Encoded results kept in the disk tier under a format and quality the caller chooses (an
/// image service encodes each response as its request asks, not as
/// ``ImagePipeline/Configuration/processedVariantFormat`` says). They are processed variants in
/// all but the choice of encoding: the same key shape, the same rules (a result answers only
/// what its original would, only while the original is fresh), written and read by the fetch
/// stage as variants are. ``ImagePipeline/encodedResult(for:)`` reads and writes them for its
/// callers; these two functions are the disk tier's side of it, public for callers that encode
/// on their own.
extension ImagePipeline {
    /// An encoded result as the disk tier keeps it, with what is known of its source.
    public struct StoredEncodedResult: Sendable, Hashable {
        /// The encoded bytes, their format, quality and size in pixels.
        public var image: EncodedImage
        /// The source's `Last-Modified` header, verbatim, when its response had one.
        public var sourceLastModified: String?
        /// Until when the source is fresh for this pipeline's cache scope (its `expiresAt`, or
        /// `sharedExpiresAt` in a ``CacheScope/shared`` scope); `nil` when the source gave no
        /// freshness, or under ``HTTPCachePolicy/ignoreHTTPHeaders``.
        public var sourceFreshUntil: Date?

        /// Creates a value; see each property.
        public init(image: EncodedImage, sourceLastModified: String? = nil, sourceFreshUntil: Date? = nil) {
            self.image = image
            self.sourceLastModified = sourceLastModified
            self.sourceFreshUntil = sourceFreshUntil
        }
    }

    /// The disk-cache key of `request`'s result encoded as `format` at `quality`:
    /// `<image cache key>|encoded:<format or auto>:q<quality>`, the shape of the processed
    /// variant's key, so a variant the pipeline stored with the same settings is the same entry.
    ///
    /// - Parameters:
    ///   - request: the request whose final image is encoded (its thumbnail and processors are
    ///     in the image cache key).
    ///   - format: the encoded format; `nil` for "the source's own", spelled `auto`.
    ///   - quality: the encoder quality, 1...100.
    public func encodedResultKey(for request: ImageRequest, format: ImageFormat?, quality: Int) -> String {
        Self.encodedKey(imageKey: imageCacheKey(for: request), format: format, quality: quality)
    }

    /// The result of `request` stored by ``storeEncodedResult(_:for:requestedFormat:)`` under
    /// `format` and `quality`, when the rules let it answer now: a disk cache is configured,
    /// the request reads the caches, the entry was stored for the same `Vary` values and is
    /// fresh (unless the request is cache-only). Nothing is decoded and nothing counted in
    /// ``statistics``.
    ///
    /// - Parameters:
    ///   - request: the request whose result is looked up.
    ///   - format: the format it was stored under; `nil` for "the source's own".
    ///   - quality: the quality it was stored under.
    /// - Returns: the bytes and what is known of their source, or `nil` (a miss).
    public func storedEncodedResult(for request: ImageRequest, format: ImageFormat?, quality: Int) -> StoredEncodedResult? {
        let p = PreparedRequest(request, pipeline: self)
        guard p.fetchKey.readsCaches, let cache = configuration.dataCache,
              let entry = cache.entry(for: Self.encodedKey(imageKey: p.imageKey, format: format, quality: quality))
        else { return nil }
        let rules = localCacheRules
        guard rules.matches(entry.metadata, cacheFacts(p)),
              p.fetchKey.isCacheOnly || rules.isFresh(entry.metadata, now: configuration.now()),
              let stored = entry.metadata.format, let width = entry.metadata.pixelWidth, let height = entry.metadata.pixelHeight
        else { return nil }
        let image = EncodedImage(data: entry.data, format: stored, quality: entry.metadata.encodingQuality, width: width, height: height)
        return StoredEncodedResult(image: image, sourceLastModified: entry.metadata.lastModified, sourceFreshUntil: freshUntil(entry.metadata))
    }

    /// Stores `result` as `request`'s result under `requestedFormat` and `result.quality`, with
    /// the freshness, `Cache-Control` and `Vary` of the original bytes the disk cache holds for
    /// `request` (and the original's `Last-Modified`, kept for the caller's responses, never used
    /// to revalidate). Nothing is stored when the disk cache has no original for the request (it
    /// was not stored: `no-store`, a policy of ``DiskCachePolicy/none``, a cache-write option),
    /// when the rules refuse its original, or when the request disables disk writes.
    ///
    /// - Parameters:
    ///   - result: the encoded bytes, their format, quality (`nil` is stored as 0) and size.
    ///   - request: the request whose final image `result` encodes.
    ///   - requestedFormat: the format the key names: `nil` when the caller asked for "the
    ///     source's own" (the entry still records `result.format`).
    /// - Returns: what was stored and the source's facts, or, when nothing was stored, the
    ///   source's facts alone (from the original's metadata, when there is one).
    @discardableResult
    public func storeEncodedResult(_ result: EncodedImage, for request: ImageRequest, requestedFormat: ImageFormat?) -> (stored: Bool, source: StoredEncodedResult) {
        storeEncodedResult(result, for: request, requestedFormat: requestedFormat, writes: true)
    }

    /// ``storeEncodedResult(_:for:requestedFormat:)``, which stores nothing unless `writes`
    /// (the source's facts are still read).
    func storeEncodedResult(
        _ result: EncodedImage, for request: ImageRequest, requestedFormat: ImageFormat?, writes: Bool
    ) -> (stored: Bool, source: StoredEncodedResult) {
        let p = PreparedRequest(request, pipeline: self)
        let original = configuration.dataCache?.metadata(for: p.dataKey)
        let facts = StoredEncodedResult(
            image: result, sourceLastModified: original?.lastModified, sourceFreshUntil: original.flatMap(freshUntil))
        guard writes, !request.options.contains(.disableDiskCacheWrites), let cache = configuration.dataCache, let original,
              var metadata = localCacheRules.variantMetadata(inheriting: original, for: cacheFacts(p))
        else { return (false, facts) }
        metadata.format = result.format
        metadata.encodingQuality = result.quality ?? 0
        metadata.pixelWidth = result.width
        metadata.pixelHeight = result.height
        metadata.lastModified = original.lastModified
        let key = Self.encodedKey(imageKey: p.imageKey, format: requestedFormat, quality: result.quality ?? 0)
        cache.store(result.data, for: key, metadata: metadata, source: p.dataKey)
        return (true, facts)
    }

    static func encodedKey(imageKey: ImageCacheKey, format: ImageFormat?, quality: Int) -> String {
        imageKey.rawValue + "|encoded:" + (format?.rawValue ?? "auto") + ":q" + String(quality)
    }

    private func freshUntil(_ metadata: DataCacheMetadata) -> Date? {
        guard configuration.httpCachePolicy == .http else { return nil }
        return configuration.cacheScope == .shared ? metadata.sharedExpiresAt : metadata.expiresAt
    }
}
