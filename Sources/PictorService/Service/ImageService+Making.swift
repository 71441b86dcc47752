import Foundation
import PictorCore

/// Making a result: the pipeline's encoded-result step, within the request's deadline.
extension ImageService {
    /// The result for `plan` from the pipeline's encoded-result step
    /// (``/PictorCore/ImagePipeline/encodedResult(for:)``: the disk tier's stored result, or the
    /// image loaded and encoded on the pipeline's processing queue, made once for every request
    /// asking at the same time), kept in memory.
    ///
    /// The call races a sleep of `timeout` seconds: the loser is cancelled, so a request that
    /// runs out of time (or whose task is cancelled) leaves the shared job at once, and the job
    /// stops when no request waits for it any more. The pipeline is asked with `slot` bound
    /// (``WorkSlots/current``), so the work's tasks hold it until they end.
    func make(_ plan: ResultPlan, key: String, slot: WorkSlots.Token, timeout: Double) async throws(ServiceError) -> (ResultEntry, ResultLayer) {
        let request = EncodedResultRequest(
            imageRequest: plan.request, format: plan.format, quality: plan.quality,
            maximumDimension: configuration.maxResultDimension, maximumSourceByteCount: configuration.maxSourceBytes,
            automaticFormat: { [self] image in outputFormat(for: image) })
        let pipeline = pipeline
        let outcome = await withTaskGroup(of: Result<EncodedResultResponse, ImagePipeline.Error>?.self) { group in
            group.addTask {
                await WorkSlots.$current.withValue(slot) {
                    do throws(ImagePipeline.Error) {
                        return .success(try await pipeline.encodedResult(for: request))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        switch outcome {
        case nil:
            if Task.isCancelled { throw ServiceError(.cancelled, reason: "the request was cancelled") }
            throw ServiceError(.deadlineExceeded, reason: "the image took longer than \(NumberText.format(configuration.requestTimeout)) s")
        case .failure(let error)?:
            throw PipelineFailure.refusal(for: error)
        case .success(let response)?:
            if response.wasShared { counters.withLock { $0.coalescedRequests += 1 } }
            return (entry(for: response, key: key), ResultLayer(response.layer))
        }
    }

    /// The format of a result the request left to the source: the source's when it is an
    /// output format, else PNG for an image with alpha and JPEG for one without.
    func outputFormat(for image: Image) -> ImageFormat {
        if let source = image.sourceFormat, configuration.outputFormats.contains(source) { return source }
        return image.hasAlpha ? .png : .jpeg
    }

    /// The memory entry for `response`, kept for later requests. Requests that shared one job
    /// share one entry: the first to get here keeps it, the others find it rather than hash the
    /// same bytes again for the `ETag`.
    private func entry(for response: EncodedResultResponse, key: String) -> ResultEntry {
        if let kept = results.value(for: key), kept.image == response.image { return kept }
        let entry = ResultEntry(image: response.image, lastModified: response.sourceLastModified, sourceFreshUntil: response.sourceFreshUntil)
        keep(entry, for: key)
        return entry
    }

    /// Keeps `entry` in memory no longer than its source is fresh.
    private func keep(_ entry: ResultEntry, for key: String) {
        var lifetime = configuration.resultMemoryLifetime
        if let freshUntil = entry.sourceFreshUntil {
            lifetime = min(lifetime, freshUntil.timeIntervalSince(pipeline.configuration.now()))
        }
        guard lifetime > 0 else { return }
        results.set(entry, for: key, cost: entry.image.data.count + key.utf8.count + Self.resultOverhead, ttl: lifetime)
    }
}

extension ResultLayer {
    /// The service's name for where the pipeline's encoded result came from.
    init(_ layer: EncodedResultResponse.Layer) {
        switch layer {
        case .storedResult: self = .resultDisk
        case .encoded(let from): self.init(from)
        }
    }
}
