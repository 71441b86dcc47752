import Foundation

/// The fetch stage's other ways into the disk tier, beside the fetch job: processed variants,
/// warming the disk, whether a caller's download is written, and removals. The fetch stage is
/// the only code that calls ``Configuration/dataCache``; what it may read, serve and write is
/// decided by ``CacheRules`` (pure), as for originals.
extension ImagePipeline {
    /// The rules of this pipeline's own tiers (memory, disk).
    var localCacheRules: CacheRules {
        CacheRules(scope: configuration.cacheScope, policy: configuration.httpCachePolicy)
    }

    /// What `p` brings to the cache rules.
    func cacheFacts(_ p: PreparedRequest) -> CacheRequestFacts {
        CacheRequestFacts(p.request.urlRequest, hashing: configuration.varyKeyHashing)
    }

    // MARK: - Health

    /// Whether the disk tier can serve and store entries now (its ``DataCaching/health``: for a
    /// `DiskCache`, enabled, not read-only, its directory present and writable), or `nil`
    /// without a disk tier. Cheap: a service's health endpoint asks it.
    public var diskTierHealth: TierHealth? { configuration.dataCache?.health }

    /// Whether the fleet tier answers now, within `timeout`
    /// (``SharedDataCache/health(timeout:)``: for Redis, a `PING`), or `nil` without one. A
    /// tier that does not answer is one the pipeline bypasses (every operation bounded, a
    /// failure a miss): loads go on without it.
    ///
    /// - Parameter timeout: the longest wait for the tier's answer.
    public func sharedTierHealth(timeout: Duration) async -> TierHealth? {
        await sharedTier?.cache.health(timeout: timeout)
    }

    // MARK: - Whether a download is written (the per-caller gate)

    /// Whether the caller of `p` wants downloaded original bytes written to disk: its options
    /// and ``Configuration/diskCachePolicy`` (`originalOnly` for
    /// ``ImagePipeline/data(for:)-(ImageRequest)`` and ``ImageRequest/Options/skipDecode``,
    /// which store as for an unprocessed request). The fetch job writes when its first caller
    /// wants it; a later caller that wants it and finds it not written writes it itself
    /// (``fetch(_:_:priority:progress:storesToDisk:)``), so callers that differ only here share
    /// one download.
    static func writesOriginal(
        _ request: ImageRequest, policy: DiskCachePolicy, originalOnly: Bool = false
    ) -> Bool {
        guard !request.options.contains(.disableDiskCacheWrites) else { return false }
        switch policy {
        case .original, .both: return true
        case .processed: return originalOnly || !request.isProcessed
        case .none: return false
        }
    }

    // MARK: - Processed variants

    /// The disk-cache key of `p`'s processed variant: the memory-cache key (what the image is)
    /// and how it is encoded (``Configuration/processedVariantFormat``, `auto` for the
    /// source's, and ``Configuration/processedVariantQuality``). A pipeline that keeps its
    /// variants in another format or quality makes its own from the original instead of
    /// decoding a lossy copy made for other settings (a quality-10 JPEG kept by one run is not
    /// the source of another run's PNG).
    func variantKey(_ p: PreparedRequest) -> String {
        p.imageKey.rawValue + "|encoded:" + (configuration.processedVariantFormat?.rawValue ?? "auto")
            + ":q" + String(configuration.processedVariantQuality)
    }

    /// The disk-cache key of `request`'s processed variant (``variantKey(_:)``).
    func variantCacheKey(for request: ImageRequest) -> String {
        variantKey(PreparedRequest(request, pipeline: self))
    }

    /// Whether processed variants of `p` are read and written: a processed request, a policy
    /// that keeps them, a disk cache and an encoder.
    func usesVariants(_ p: PreparedRequest) -> Bool {
        p.request.isProcessed && (configuration.diskCachePolicy == .processed || configuration.diskCachePolicy == .both)
            && configuration.dataCache != nil && configuration.encoder != nil
    }

    /// The stored processed variant of `p` when the rules let it answer: the request reads the
    /// caches, the variant matches the request (its original's `Vary` values) and, unless the
    /// request is cache-only, it is fresh.
    func variantEntry(_ p: PreparedRequest) -> DataCacheEntry? {
        guard usesVariants(p), p.fetchKey.readsCaches, let cache = configuration.dataCache,
              let entry = cache.entry(for: variantKey(p)) else { return nil }
        let rules = localCacheRules
        guard rules.matches(entry.metadata, cacheFacts(p)),
              p.fetchKey.isCacheOnly || rules.isFresh(entry.metadata, now: configuration.now()) else { return nil }
        return entry
    }

    /// The processed image `request` asks for as the disk cache keeps it, encoded, when it may
    /// answer now: the policy keeps variants (``Configuration/diskCachePolicy`` `.processed` or
    /// `.both`), one is stored with its format, quality and size, and the rules let it answer
    /// (the request reads the caches; the variant is fresh, unless the request is cache-only,
    /// and was stored for the same `Vary` values). Nothing is decoded and nothing is counted in
    /// ``statistics``.
    ///
    /// A caller that would encode the image again in the variant's format and quality writes
    /// these bytes instead (the CLI's warm `prefetch --resize … --out DIR` copies them). After
    /// ``image(for:)-(ImageRequest)`` has stored a variant, it returns that variant.
    ///
    /// - Parameter request: a request with a thumbnail or processors.
    /// - Returns: the variant, or `nil` (load with ``image(for:)-(ImageRequest)``).
    public func storedVariant(for request: ImageRequest) -> EncodedImage? {
        let p = PreparedRequest(request, pipeline: self)
        guard let entry = variantEntry(p), let format = entry.metadata.format,
              let width = entry.metadata.pixelWidth, let height = entry.metadata.pixelHeight else { return nil }
        return EncodedImage(data: entry.data, format: format, quality: entry.metadata.encodingQuality, width: width, height: height)
    }

    /// The metadata a variant of `p` made from an original stored with `original` is kept
    /// with, or `nil` when none is kept (see ``CacheRules/variantMetadata(inheriting:for:)``).
    func variantMetadata(_ p: PreparedRequest, original: DataCacheMetadata) -> DataCacheMetadata? {
        guard usesVariants(p), !p.request.options.contains(.disableDiskCacheWrites) else { return nil }
        return localCacheRules.variantMetadata(inheriting: original, for: cacheFacts(p))
    }

    /// Stores the encoded variant of `p`, related to its original (removing the original's
    /// entry with its variants finds it).
    func storeVariant(_ data: Data, metadata: DataCacheMetadata, _ p: PreparedRequest) {
        configuration.dataCache?.store(data, for: variantKey(p), metadata: metadata, source: p.dataKey)
    }

    /// Removes the variant of `p` (it failed to decode).
    func discardVariant(_ p: PreparedRequest) {
        configuration.dataCache?.removeData(for: variantKey(p))
    }

    // MARK: - Warming

    /// Brings the original bytes of `request` into the disk cache without decoding them, and
    /// says which tier has them: a disk entry the rules would serve now is answered from its
    /// metadata alone (``DataCaching/metadata(for:)``, no bytes read); anything else (missing,
    /// stale, stored for other `Vary` values) goes through the fetch job, so a stale entry is
    /// revalidated, not counted as a hit.
    func warm(_ request: ImageRequest, priority: PriorityHandle) async throws(Error) -> CacheLayer {
        let p = PreparedRequest(request, pipeline: self)
        if p.fetchKey.readsCaches, let cache = configuration.dataCache, let metadata = cache.metadata(for: p.dataKey) {
            let rules = localCacheRules
            if rules.matches(metadata, cacheFacts(p)), rules.isFresh(metadata, now: configuration.now()) {
                counters.withLock {
                    $0.requests += 1
                    $0.record(.disk)
                }
                return .disk
            }
        }
        return try await performData(request, priority: priority).cacheLayer
    }

    // MARK: - Removals

    /// Removes the original bytes of `p` from the disk and the shared tier (they failed to
    /// decode, or end before the image does): whoever stored them, nobody is served them again.
    func discardOriginal(_ p: PreparedRequest) async {
        configuration.dataCache?.removeData(for: p.dataKey)
        await sharedTier?.remove(p.dataKey)
    }

    /// Removes what the disk cache holds for `p`: its processed variant, and its original when
    /// `includingOriginal`.
    func removeStored(_ p: PreparedRequest, includingOriginal: Bool) {
        guard let cache = configuration.dataCache else { return }
        if p.request.isProcessed { cache.removeData(for: variantKey(p)) }
        if includingOriginal { cache.removeData(for: p.dataKey) }
    }

    /// Empties the disk cache.
    func removeAllStored() {
        configuration.dataCache?.removeAll()
    }
}
