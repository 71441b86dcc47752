import Foundation

/// The encoded-result step: a request's final image encoded as its caller asks, made once
/// however many callers ask for it at the same time, and kept in the disk tier.
extension ImagePipeline {
    /// The final image of `request.imageRequest` encoded as `request.format` at
    /// `request.quality`: the disk tier's stored result when it may answer, else the image
    /// loaded, checked and encoded now, then stored.
    ///
    /// 1. Callers asking at once for the same ``encodedResultKey(for:format:quality:)`` (its
    ///    bytes, not Unicode equivalence), with the same request options and limits, share one
    ///    job: the first starts it, the others join it (``EncodedResultResponse/wasShared``,
    ///    counted in ``Statistics/sharedRequests``). The job runs at the highest priority of its
    ///    callers. Cancelling a caller's task makes that caller throw ``Error/cancelled`` at
    ///    once; the job goes on for the others and is cancelled with its last caller.
    /// 2. The disk tier's encoded result (``storedEncodedResult(for:format:quality:)``, on the
    ///    same rules: fresh, same `Vary` values), read, not decoded.
    /// 3. Else the image as ``image(for:)-(ImageRequest)`` loads it (memory, processed variant,
    ///    disk, fleet tier or network; decoded and processed, itself shared with image requests
    ///    for it); its original checked against ``EncodedResultRequest/maximumSourceByteCount``
    ///    and its size against ``EncodedResultRequest/maximumDimension``; encoded with
    ///    ``Configuration/encoder`` as ``EncodedResultRequest/format`` (or the format
    ///    ``EncodedResultRequest/automaticFormat`` picks), on the processing queue
    ///    (``Configuration/processingQueueWidth``, at the job's priority, never on the Swift
    ///    cooperative pool; counted in ``Statistics/resultEncodes``); and stored by
    ///    ``storeEncodedResult(_:for:requestedFormat:)`` (not when the image is truncated,
    ///    ``Image/isTruncated``: the result is delivered, never kept).
    ///
    /// - Parameter request: the image request, format, quality and limits.
    /// - Returns: the bytes, what is known of their source (from the disk tier's entry for the
    ///   original), the layer that answered and whether this caller joined another's job.
    /// - Throws: ``Error/loadingFailed(_:)`` (a source over
    ///   ``EncodedResultRequest/maximumSourceByteCount`` wraps
    ///   ``DataLoadingError/responseTooLarge(limit:)``), ``Error/decodingFailed(_:)`` or
    ///   ``Error/processingFailed(processor:underlying:)`` from the load;
    ///   ``Error/resultTooLarge(width:height:limit:)``, ``Error/noEncoder`` or
    ///   ``Error/encodingFailed(_:)`` from the checks and the encode; ``Error/cancelled`` when
    ///   the calling task is cancelled. Callers of one job get its error alike.
    public func encodedResult(for request: EncodedResultRequest) async throws(Error) -> EncodedResultResponse {
        let prepared = PreparedRequest(request.imageRequest, pipeline: self)
        let key = Self.encodedKey(imageKey: prepared.imageKey, format: request.format, quality: request.quality)
        var joined = false
        do {
            var response = try await encodedResults.value(
                for: EncodedResultKey(key, request), priority: PriorityHandle.fixed(request.imageRequest.priority), joined: { joined = $0 }
            ) { [self] context in
                try await self.makeEncodedResult(request, prepared, priority: context.priority)
            }
            if joined { counters.withLock { $0.sharedRequests += 1 } }
            response.wasShared = joined
            return response
        } catch {
            throw Error(Task.isCancelled ? CancellationError() : error)
        }
    }

    /// The job behind ``encodedResult(for:)``, run once per key at a time.
    private func makeEncodedResult(
        _ request: EncodedResultRequest, _ p: PreparedRequest, priority: PriorityHandle
    ) async throws -> EncodedResultResponse {
        let imageRequest = request.imageRequest
        if let stored = storedEncodedResult(for: imageRequest, format: request.format, quality: request.quality) {
            log(.debug, imageRequest, "encoded result served from disk")
            return EncodedResultResponse(
                image: stored.image, sourceLastModified: stored.sourceLastModified, sourceFreshUntil: stored.sourceFreshUntil,
                layer: .storedResult)
        }
        let loaded: ImageResponse
        if let hit = memoryHit(p) {
            loaded = hit
        } else {
            loaded = try await load(p, priority: priority, progress: nil, start: ContinuousClock.now)
        }
        if let limit = request.maximumSourceByteCount, let bytes = loaded.metrics.originalByteCount, bytes > limit {
            throw Error.loadingFailed(DataLoadingError.responseTooLarge(limit: Int64(limit)))
        }
        let image = loaded.image
        if let limit = request.maximumDimension, image.width > limit || image.height > limit {
            throw Error.resultTooLarge(width: image.width, height: image.height, limit: limit)
        }
        let format = request.format ?? request.automaticFormat(image)
        guard let encoder = configuration.encoder else { throw Error.noEncoder }
        let quality = request.quality
        let data: Data
        let observer = configuration.stageObserver
        do {
            data = try await processQueue.execute(priority: priority) {
                try Self.encode(image, as: format, quality: quality, with: encoder, observer: observer)
            }.value
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            log(.info, imageRequest, "encoding the result as \(format.rawValue) failed: \(error)")
            throw Error.encodingFailed(error)
        }
        counters.withLock { $0.resultEncodes += 1 }
        let encoded = EncodedImage(data: data, format: format, quality: quality, width: image.width, height: image.height)
        let source = storeEncodedResult(encoded, for: imageRequest, requestedFormat: request.format, writes: !image.isTruncated).source
        return EncodedResultResponse(
            image: encoded, sourceLastModified: source.sourceLastModified, sourceFreshUntil: source.sourceFreshUntil,
            layer: .encoded(from: loaded.cacheLayer))
    }

    /// Encodes `image` with `encoder`, telling `observer` how long it took (no clock read
    /// without one).
    static func encode(
        _ image: Image, as format: ImageFormat, quality: Int, with encoder: any ImageEncoding,
        observer: (@Sendable (PipelineStage, Duration) -> Void)?
    ) throws -> Data {
        guard let observer else { return try encoder.encode(image, as: format, quality: quality) }
        let start = ContinuousClock.now
        defer { observer(.encode, ContinuousClock.now - start) }
        return try encoder.encode(image, as: format, quality: quality)
    }
}
