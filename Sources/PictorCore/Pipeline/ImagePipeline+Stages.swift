import Foundation
import Synchronization

/// The stages of one request: load (memory, processed variant) → process → decode → fetch.
/// Each stage is a shared job in its own pool; a stage's work subscribes to the stage below.
extension ImagePipeline {
    /// Runs an image request end to end and counts its outcome.
    func perform(
        _ request: ImageRequest, priority: PriorityHandle, progress: (@Sendable (TransferProgress) -> Void)?,
        previews: (any PreviewTarget)? = nil
    ) async throws(Error) -> ImageResponse {
        let prepared = PreparedRequest(request, pipeline: self)
        if let hit = memoryHit(prepared) { return hit }
        return try await load(prepared, priority: priority, progress: progress, previews: previews, start: ContinuousClock.now)
    }

    /// The response from the memory cache, counted as a request, or `nil` on a miss (then
    /// nothing is counted). Its metrics are all zero: the hit path reads no clock.
    func memoryHit(_ prepared: PreparedRequest) -> ImageResponse? {
        let request = prepared.request
        guard readsMemory(request), let image = memoryImage(for: prepared.imageKey) else { return nil }
        counters.withLock {
            $0.requests += 1
            $0.record(.memory)
        }
        log(.debug, request, "served from memory")
        return ImageResponse(image: image, request: request, cacheLayer: .memory)
    }

    /// Runs a request the memory cache did not answer.
    func load(
        _ prepared: PreparedRequest, priority: PriorityHandle, progress: (@Sendable (TransferProgress) -> Void)?,
        previews: (any PreviewTarget)? = nil, start: ContinuousClock.Instant
    ) async throws(Error) -> ImageResponse {
        let request = prepared.request
        counters.withLock { $0.requests += 1 }
        if request.options.contains(.skipDecode) {
            return try await performSkippingDecode(prepared, priority: priority, progress: progress, start: start)
        }
        do {
            var joined = false
            let output = try await loads.value(
                for: prepared.loadKey, priority: priority, progress: progress, preview: previews, joined: { joined = $0 }
            ) { [self] context in
                try await self.runLoadJob(prepared, context)
            }
            if joined { counters.withLock { $0.sharedRequests += 1 } }
            var metrics = output.metrics
            metrics.wasShared = metrics.wasShared || joined
            metrics.totalDuration = (ContinuousClock.now - start).seconds
            counters.withLock { $0.record(output.layer) }
            log(.debug, request, "served from \(output.layer)")
            var response = ImageResponse(
                image: output.image, request: request, cacheLayer: output.layer, isRevalidated: output.isRevalidated,
                isStaleOnArrival: output.isStaleOnArrival, urlResponse: output.urlResponse,
                discardedCachedEntry: output.discardedCachedEntry, metrics: metrics)
            response.revalidation = output.imageRevalidation
            return response
        } catch {
            let failure = Error(Task.isCancelled ? CancellationError() : error)
            counters.withLock { $0.record(failure) }
            log(failure.kind == .cancelled ? .debug : .info, request, "failed: \(failure)")
            throw failure
        }
    }

    /// Fetches the original bytes of an image request without decoding (``ImageRequest/Options/skipDecode``).
    private func performSkippingDecode(
        _ p: PreparedRequest, priority: PriorityHandle, progress: (@Sendable (TransferProgress) -> Void)?,
        start: ContinuousClock.Instant
    ) async throws(Error) -> ImageResponse {
        do {
            let fetched = try await fetch(p, p.fetchKey, priority: priority, progress: progress, storesToDisk: p.storesOriginal(originalOnly: true))
            try await checkWhole(fetched.output.fetched, p)
            let source = fetched.output.fetched.source
            let layer = fetched.output.fetched.layer
            counters.withLock { $0.record(layer) }
            var metrics = ImageTaskMetrics()
            metrics.loadDuration = fetched.output.duration
            metrics.originalByteCount = fetched.output.fetched.data.count
            metrics.wasShared = fetched.joined
            metrics.totalDuration = (ContinuousClock.now - start).seconds
            let placeholder = Image(width: 1, height: 1, layout: .rgba, pixels: Data(count: 4))
            return ImageResponse(
                image: placeholder, request: p.request, cacheLayer: layer, isRevalidated: source == .revalidated,
                isStaleOnArrival: fetched.output.fetched.isStaleOnArrival, urlResponse: fetched.output.fetched.response, metrics: metrics)
        } catch {
            let failure = Error(Task.isCancelled ? CancellationError() : error)
            counters.withLock { $0.record(failure) }
            throw failure
        }
    }

    /// Runs a data request (fetch only) and counts its outcome.
    nonisolated(nonsending) func performData(_ request: ImageRequest, priority: PriorityHandle) async throws(Error) -> ImageDataResponse {
        counters.withLock { $0.requests += 1 }
        let prepared = PreparedRequest(request, pipeline: self)
        do {
            let fetched = try await fetch(
                prepared, prepared.fetchKey, priority: priority, progress: nil, storesToDisk: prepared.storesOriginal(originalOnly: true))
            let output = fetched.output
            try await checkWhole(output.fetched, prepared)
            let layer = output.fetched.layer
            counters.withLock { $0.record(layer) }
            var metrics = ImageTaskMetrics()
            metrics.loadDuration = output.duration
            metrics.originalByteCount = output.fetched.data.count
            metrics.wasShared = fetched.joined
            return ImageDataResponse(
                data: output.fetched.data, cacheLayer: layer, isRevalidated: output.fetched.source == .revalidated,
                isStaleOnArrival: output.fetched.isStaleOnArrival, urlResponse: output.fetched.response, metrics: metrics)
        } catch {
            let failure = Error(Task.isCancelled ? CancellationError() : error)
            counters.withLock { $0.record(failure) }
            throw failure
        }
    }

    /// Bytes delivered without decoding are checked for what a decoder would find at once: a
    /// JPEG, PNG, GIF or WebP that visibly ends before the image does (a server that cut the
    /// file and sent a matching `Content-Length`). Such bytes are removed from the disk and the
    /// shared tier, and the request fails with ``ImageDecodingError/truncated(_:)``, unless
    /// ``ImageDecodingOptions/truncatedData`` accepts them, as a decode would (by default, an
    /// animation with a complete frame): then they are delivered and still not kept. Only new
    /// bytes (downloaded, or from the shared tier) are scanned: what the disk holds passed this
    /// check or a decode when it was stored.
    nonisolated(nonsending) private func checkWhole(_ fetched: FetchResult, _ p: PreparedRequest) async throws(Error) {
        guard fetched.source == .network || fetched.source == .shared,
              let format = fetched.metadata.format ?? ImageFormat.sniff(fetched.data),
              FileStructure.isTruncated(fetched.data, format: format) else { return }
        await discardOriginal(p)
        guard !configuration.decodingOptions.truncatedData.accepts(cut: fetched.data, format: format) else { return }
        log(.info, p.request, "downloaded bytes end before the image does; not kept")
        throw .decodingFailed(ImageDecodingError.truncated(format))
    }

    /// The load job: a processed variant from disk when the policy keeps them, else the
    /// processing chain; then stores the result.
    private func runLoadJob(_ p: PreparedRequest, _ context: SharedWorkPool<LoadKey, StageOutput>.Context) async throws -> StageOutput {
        var discarded = false
        if let variant = try await processedVariant(p, priority: context.priority, discarded: &discarded) {
            await store(variant.image, p, writesVariant: false, original: nil, priority: context.priority)
            return variant
        }
        var output = try await processed(
            p, count: p.processors.count, priority: context.priority, progress: context.reportProgress, previews: context.previews)
        output.discardedCachedEntry = output.discardedCachedEntry || discarded
        await store(output.image, p, writesVariant: true, original: output.original, priority: context.priority)
        // Stale bytes answered: the image is made again, once for every caller of this load,
        // if their background revalidation brings other bytes.
        if let revalidation = output.fetchRevalidation {
            output.imageRevalidation = startImageRevalidation(p, after: revalidation)
        }
        return output
    }

    /// Applies the first `count` processors of the chain; `count == 0` is the decoded image.
    private func processed(
        _ p: PreparedRequest, count: Int, priority: PriorityHandle, progress: (@Sendable (TransferProgress) -> Void)?,
        previews: any PreviewTarget
    ) async throws -> StageOutput {
        guard count > 0 else { return try await decoded(p, priority: priority, progress: progress, previews: previews) }
        let key = ProcessKey(decode: p.decodeKey, processors: p.processors.prefix(count).map(ImageProcessors.cacheIdentifier(of:)))
        var joined = false
        var output = try await processings.value(
            for: key, priority: priority, progress: progress, preview: previews, joined: { joined = $0 }
        ) { [self] context in
            self.counters.withLock { $0.processingsStarted += 1 }
            let input = try await self.processed(
                p, count: count - 1, priority: context.priority, progress: context.reportProgress, previews: context.previews)
            return try await self.process(input, with: p.processors[count - 1], priority: context.priority)
        }
        if joined {
            counters.withLock { $0.sharedRequests += 1 }
            output.metrics.wasShared = true
        }
        return output
    }

    /// Applies `processor` to `input`'s image on the processing queue.
    func process(_ input: StageOutput, with processor: any ImageProcessing, priority: PriorityHandle) async throws -> StageOutput {
        let renderer = configuration.renderer
        let image = input.image
        let result: (value: (Image, Double), queueWait: Double)
        do {
            result = try await processQueue.execute(priority: priority) {
                let start = ContinuousClock.now
                let output = try processor.process(image, context: ImageProcessingContext(renderer: renderer))
                return (output, (ContinuousClock.now - start).seconds)
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw Error.processingFailed(processor: processor.identifier, underlying: error)
        }
        configuration.stageObserver?(.process, .seconds(result.value.1))
        var output = input
        output.image = result.value.0
        output.metrics.processDuration += result.value.1
        output.metrics.queueWaitDuration += result.queueWait
        return output
    }

    /// Decodes the original bytes (at the thumbnail size); a cached entry that fails to decode
    /// is removed (from the disk and the shared tier) and fetched again past the caches.
    private func decoded(
        _ p: PreparedRequest, priority: PriorityHandle, progress: (@Sendable (TransferProgress) -> Void)?,
        previews: any PreviewTarget
    ) async throws -> StageOutput {
        var joined = false
        var output = try await decodes.value(
            for: p.decodeKey, priority: priority, progress: progress, preview: previews, joined: { joined = $0 }
        ) { [self] context in
            let first = try await self.fetch(
                p, p.fetchKey, priority: context.priority, progress: context.reportProgress, previews: context.previews,
                storesToDisk: p.storesOriginal())
            do {
                var output = try await self.decode(first.output, p, priority: context.priority)
                output.metrics.wasShared = first.joined
                return output
            } catch let error as Error where error.kind == .decoding {
                await self.discardOriginal(p)
                guard first.output.fetched.source != .network else { throw error }
                self.counters.withLock { $0.discardedCacheEntries += 1 }
                self.log(.warning, p.request, "cached bytes failed to decode and were removed: \(error)")
                guard !p.fetchKey.isCacheOnly else { throw error }
                let second = try await self.fetch(
                    p, p.fetchKey.reloading, priority: context.priority, progress: context.reportProgress, storesToDisk: p.storesOriginal())
                var output: StageOutput
                do {
                    output = try await self.decode(second.output, p, priority: context.priority)
                } catch let error as Error where error.kind == .decoding {
                    // The origin itself serves bytes that do not decode: keep none of them.
                    await self.discardOriginal(p)
                    throw error
                }
                output.discardedCachedEntry = true
                output.metrics.loadDuration += first.output.duration
                return output
            }
        }
        if joined {
            counters.withLock { $0.sharedRequests += 1 }
            output.metrics.wasShared = true
        }
        return output
    }

    /// Decodes fetched bytes on the decode queue.
    func decode(_ fetched: FetchOutput, _ p: PreparedRequest, priority: PriorityHandle) async throws -> StageOutput {
        var decodingOptions = configuration.decodingOptions
        decodingOptions.thumbnail = p.thumbnail
        let options = decodingOptions
        let decoder = configuration.decoder
        let data = fetched.fetched.data
        let result: (value: (Image, Double), queueWait: Double)
        do {
            result = try await decodeQueue.execute(priority: priority) { [self] in
                // Counted when the decoder runs: a request cancelled while it waits for its
                // bytes or for a decoder decodes nothing.
                self.counters.withLock { $0.decodesStarted += 1 }
                let start = ContinuousClock.now
                let image = try decoder.decode(data, options: options)
                return (image, (ContinuousClock.now - start).seconds)
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw Error.decodingFailed(error)
        }
        configuration.stageObserver?(.decode, .seconds(result.value.1))
        let source = fetched.fetched.source
        var metrics = ImageTaskMetrics()
        metrics.loadDuration = fetched.duration
        metrics.decodeDuration = result.value.1
        metrics.queueWaitDuration = result.queueWait
        metrics.originalByteCount = data.count
        return StageOutput(
            image: result.value.0, layer: fetched.fetched.layer, isRevalidated: source == .revalidated,
            isStaleOnArrival: fetched.fetched.isStaleOnArrival, urlResponse: fetched.fetched.response, metrics: metrics,
            original: fetched.fetched.metadata, fetchRevalidation: fetched.revalidation)
    }
}
