import Foundation
import PictorCore

/// Making a result: the disk tier's encoded result, or the pipeline's image encoded now.
extension ImageService {
    /// The job for one key: runs once however many requests wait for it, and stores what it
    /// makes in memory (and on disk) before the waiters see it.
    func make(_ plan: ResultPlan, key: String) async -> ResultOutcome {
        if let stored = pipeline.storedEncodedResult(for: plan.request, format: plan.format, quality: plan.quality) {
            let entry = ResultEntry(image: stored.image, lastModified: stored.sourceLastModified, sourceFreshUntil: stored.sourceFreshUntil)
            keep(entry, for: key)
            return .made(entry, .resultDisk)
        }
        let response: ImageResponse
        do {
            response = try await pipeline.image(for: plan.request)
        } catch {
            return .refused(PipelineFailure.refusal(for: error))
        }
        if let bytes = response.metrics.originalByteCount, bytes > configuration.maxSourceBytes {
            return .refused(ServiceError(.sourceTooLarge, reason: "the source is larger than \(configuration.maxSourceBytes) bytes"))
        }
        let image = response.image
        let limit = configuration.maxResultDimension
        guard image.width <= limit, image.height <= limit else {
            return .refused(ServiceError(.resultTooLarge, reason: "the result would be \(image.width)x\(image.height), over the limit of \(limit) pixels a side"))
        }
        let format = plan.format ?? outputFormat(for: image)
        guard let encoder = pipeline.configuration.encoder else {
            return .refused(ServiceError(.unavailable, reason: "no image encoder is configured"))
        }
        let quality = plan.quality
        let data: Data
        do {
            data = try await encodeLane.run { try encoder.encode(image, as: format, quality: quality) }
        } catch {
            return .refused(ServiceError(.processingFailed, reason: "encoding the result as \(format.rawValue) failed"))
        }
        counters.withLock { $0.encodes += 1 }
        let encoded = EncodedImage(data: data, format: format, quality: quality, width: image.width, height: image.height)
        let source = pipeline.storeEncodedResult(encoded, for: plan.request, requestedFormat: plan.format).source
        let entry = ResultEntry(image: encoded, lastModified: source.sourceLastModified, sourceFreshUntil: source.sourceFreshUntil)
        keep(entry, for: key)
        return .made(entry, ResultLayer(response.cacheLayer))
    }

    /// The format of a result the request left to the source: the source's when it is an
    /// output format, else PNG for an image with alpha and JPEG for one without.
    func outputFormat(for image: Image) -> ImageFormat {
        if let source = image.sourceFormat, configuration.outputFormats.contains(source) { return source }
        return image.hasAlpha ? .png : .jpeg
    }

    /// Keeps `entry` in memory no longer than its source is fresh.
    private func keep(_ entry: ResultEntry, for key: String) {
        var lifetime = configuration.resultMemoryLifetime
        if let freshUntil = entry.sourceFreshUntil {
            lifetime = min(lifetime, freshUntil.timeIntervalSince(pipeline.configuration.now()))
        }
        guard lifetime > 0 else { return }
        results.set(entry, for: key, cost: entry.image.data.count, ttl: lifetime)
    }
}
