import Foundation

/// Reading and writing the caches around a load: the memory cache and processed variants on disk.
extension ImagePipeline {
    /// Removes what the caches hold for `request`: its final image from the memory cache, its
    /// processed variant and (when `includingOriginal`, the default) its original bytes from
    /// ``Configuration/dataCache``.
    ///
    /// - Parameters:
    ///   - request: the request whose cached forms are removed.
    ///   - includingOriginal: whether the original bytes are removed from the disk cache too;
    ///     `true` by default.
    public func removeCachedImage(for request: ImageRequest, includingOriginal: Bool = true) {
        let prepared = PreparedRequest(request, pipeline: self)
        configuration.imageCache?.removeImage(for: prepared.imageKey)
        removeStored(prepared, includingOriginal: includingOriginal)
    }

    /// The memory cache's image for `key`: an ``ImageCache`` is called directly (a final class,
    /// so the call is static and its lookup inlined), any other ``ImageCaching`` through the
    /// protocol.
    func memoryImage(for key: ImageCacheKey) -> Image? {
        if let imageCache { return imageCache._withUnsafeGuaranteedRef { $0.image(for: key) } }
        return configuration.imageCache?.image(for: key)
    }

    /// Empties the memory cache and, when `includingDisk`, ``Configuration/dataCache``.
    ///
    /// - Parameter includingDisk: whether the disk cache is emptied too; `false` by default (memory
    ///   only).
    public func removeAllCachedImages(includingDisk: Bool = false) {
        configuration.imageCache?.removeAll()
        if includingDisk { removeAllStored() }
    }

    /// The default format of `image`'s processed variant: its source's when that is one every
    /// encoder of the pipeline writes well, PNG otherwise (lossless, with alpha).
    static func variantFormat(of image: Image) -> ImageFormat {
        if let source = image.sourceFormat, [.jpeg, .png, .webp, .gif, .avif].contains(source) { return source }
        return .png
    }

    /// The processed variant of `p` decoded from the disk cache, if the policy keeps variants
    /// and one is stored. A variant that fails to decode is removed (`discarded` set).
    ///
    /// Which variant may answer is the fetch stage's decision (``variantEntry(_:)``): a variant
    /// answers only a request its original would answer, and under ``HTTPCachePolicy/http``
    /// only while the original is fresh; after that the request goes to the original, which is
    /// revalidated or downloaded, and a new variant replaces this one.
    func processedVariant(_ p: PreparedRequest, priority: PriorityHandle, discarded: inout Bool) async throws -> StageOutput? {
        guard let entry = variantEntry(p) else { return nil }
        let decoder = configuration.decoder
        let options = configuration.decodingOptions
        let data = entry.data
        do {
            let result = try await decodeQueue.execute(priority: priority) {
                let start = ContinuousClock.now
                let image = try decoder.decode(data, options: options)
                return (image, (ContinuousClock.now - start).seconds)
            }
            configuration.stageObserver?(.decode, .seconds(result.value.1))
            var metrics = ImageTaskMetrics()
            metrics.decodeDuration = result.value.1
            metrics.queueWaitDuration = result.queueWait
            // No original was read: the variant's bytes are not the original's size.
            metrics.originalByteCount = nil
            return StageOutput(image: result.value.0, layer: .disk, metrics: metrics)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            discardVariant(p)
            counters.withLock { $0.discardedCacheEntries += 1 }
            log(.warning, p.request, "processed variant failed to decode and was removed: \(error)")
            discarded = true
            return nil
        }
    }

    /// Stores a final image in memory and, when `writesVariant` and the policy says so, its
    /// encoded form on disk (encoded on the processing queue; the load waits for it, so a
    /// response means the variant is readable). A failed encode is logged and counted in
    /// ``Statistics/cacheWriteFailures``; it never fails the request. A truncated image
    /// (``Image/isTruncated``, as ``ImageDecodingOptions/truncatedData`` allows) is
    /// delivered but stored nowhere: a later request must not be served a partial image.
    ///
    /// What the variant is kept with, and whether it is kept at all, is the fetch stage's
    /// decision (``variantMetadata(_:original:)``, on ``CacheRules``); in a
    /// ``CacheScope/shared`` scope an image made from an original the rules refuse is not kept
    /// in memory either.
    func store(_ image: Image, _ p: PreparedRequest, writesVariant: Bool, original: DataCacheMetadata?, priority: PriorityHandle) async {
        guard !image.isTruncated else { return }
        let options = p.request.options
        if !options.contains(.disableMemoryCacheWrites), localCacheRules.keepsInMemory(madeFrom: original, for: cacheFacts(p)) {
            configuration.imageCache?.storeImage(image, for: p.imageKey)
        }
        guard writesVariant, let original, var metadata = variantMetadata(p, original: original),
              let encoder = configuration.encoder else { return }
        let format = configuration.processedVariantFormat ?? Self.variantFormat(of: image)
        let quality = configuration.processedVariantQuality
        metadata.format = format
        metadata.encodingQuality = quality
        metadata.pixelWidth = image.width
        metadata.pixelHeight = image.height
        do {
            let observer = configuration.stageObserver
            let result = try await processQueue.execute(priority: priority) {
                try Self.encode(image, as: format, quality: quality, with: encoder, observer: observer)
            }
            storeVariant(result.value, metadata: metadata, p)
        } catch is CancellationError {
            return
        } catch {
            counters.withLock { $0.cacheWriteFailures += 1 }
            log(.warning, p.request, "storing the processed variant failed: \(error)")
        }
    }
}
