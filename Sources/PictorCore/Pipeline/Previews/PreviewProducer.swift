import Foundation
import Synchronization

/// Makes one download's previews: the fetch job hands it each body chunk as it arrives (on the
/// transport's thread), and it decodes them on the pipeline's decoding queue with a fresh
/// ``ImagePreviewDecoding`` when ``PreviewSchedule`` says a decode is due, then hands each
/// preview to its sink (the fetch job's callers). The fetch job closes it when the download
/// ends; from then on nothing is decoded or delivered.
///
/// Bytes are copied once into ``State/pending`` and dropped when the preview decoder has taken
/// them (a decoder keeps only what it has not consumed yet).
final class PreviewProducer: Sendable {
    private struct State {
        var schedule: PreviewSchedule
        /// Bytes received and not yet given to the preview decoder (all of them until one exists).
        var pending = Data()
        /// The decoder, once the format is known and a decoder makes previews of it.
        var decoder: (any ImagePreviewDecoding)?
        /// Bumped when a new body starts (a retry or a redirect's target): a decode of the old
        /// body that ends later is ignored.
        var generation = 0
        /// Whether this body makes no previews (unknown format, no preview decoder, damage).
        var isBarren = false
        var received = 0
    }

    /// Bytes a format is sniffed from at most: past this without a known format, no previews.
    static let sniffLength = 64

    private let state: Mutex<State>
    private let decoder: any ImageDecoding
    private let options: ImageDecodingOptions
    /// The kinds the download's callers wanted when it started.
    private let kinds: ImagePreviewKinds
    private let queue: WorkQueue
    private let priority: PriorityHandle
    private let now: @Sendable () -> Duration
    private let sink: any PreviewTarget

    init(
        decoder: any ImageDecoding, options: ImageDecodingOptions, kinds: ImagePreviewKinds, interval: Duration,
        queue: WorkQueue, priority: PriorityHandle, now: @escaping @Sendable () -> Duration, sink: any PreviewTarget
    ) {
        self.state = Mutex(State(schedule: PreviewSchedule(interval: interval)))
        self.decoder = decoder
        self.options = options
        self.kinds = kinds
        self.queue = queue
        self.priority = priority
        self.now = now
        self.sink = sink
    }

    /// A body chunk arrived: `offset` is where it starts in the body (0 starts a new body).
    func received(offset: Int64, _ chunk: Data) {
        let start: (batch: Data, generation: Int)? = state.withLock { s in
            guard !s.schedule.isClosed else { return nil }
            if offset == 0, s.received > 0 {
                s.generation += 1
                s.pending = Data()
                s.decoder = nil
                s.isBarren = false
                s.received = 0
            }
            guard !s.isBarren else { return nil }
            s.pending.append(chunk)
            s.received += chunk.count
            guard s.schedule.bytesArrived(now: now()) else { return nil }
            defer { s.pending = Data() }
            return (s.pending, s.generation)
        }
        if let start { launch(start.batch, generation: start.generation) }
    }

    /// The download ended: nothing more is decoded or delivered, and the decoder is let go.
    func close() {
        state.withLock { s in
            s.schedule.close()
            s.pending = Data()
            s.decoder = nil
        }
    }

    private func launch(_ firstBatch: Data, generation firstGeneration: Int) {
        Task.detached(priority: .utility) { [self] in
            var batch = firstBatch
            var generation = firstGeneration
            while true {
                let decoder = state.withLock { $0.generation == generation ? $0.decoder : nil }
                let input = batch
                let made: Step = (try? await queue.execute(priority: priority) { [self] in
                    step(input, decoder: decoder)
                })?.value ?? .barren
                let next: (Data, Int)? = state.withLock { s in
                    // A new body may have started while this decode ran: then its result is
                    // the old body's, and only the schedule is moved on.
                    let arrived = !s.pending.isEmpty
                    if s.generation == generation { apply(made, of: input, to: &s) }
                    guard s.schedule.decodeEnded(now: now(), hasPendingBytes: arrived && !s.isBarren) else { return nil }
                    defer { s.pending = Data() }
                    return (s.pending, s.generation)
                }
                guard let next else { return }
                (batch, generation) = next
            }
        }
    }

    private func apply(_ made: Step, of batch: Data, to s: inout State) {
        switch made {
        case .needsMoreForFormat:
            s.pending = batch + s.pending
        case .barren:
            s.isBarren = true
            s.pending = Data()
            s.decoder = nil
        case .fed(let fedDecoder, let preview):
            if !s.schedule.isClosed { s.decoder = fedDecoder }
            if let preview, s.schedule.previewMade(now: now()) {
                // Delivered under the lock: a close that follows waits for it, so nothing is
                // delivered after the fetch job closed the producer.
                sink.deliverPreview(preview, kind: fedDecoder.kind)
            }
        }
    }

    private enum Step: Sendable {
        /// Too few bytes yet to know the format.
        case needsMoreForFormat
        /// No previews from this body.
        case barren
        /// The decoder took the bytes; a preview when they completed more of the image.
        case fed(any ImagePreviewDecoding, Image?)
    }

    /// One decode, on the decoding queue.
    private func step(_ batch: Data, decoder existing: (any ImagePreviewDecoding)?) -> Step {
        var previewDecoder = existing
        if previewDecoder == nil {
            guard let format = ImageFormat.sniff(batch) else {
                return batch.count < Self.sniffLength ? .needsMoreForFormat : .barren
            }
            previewDecoder = decoder.makePreviewDecoder(format: format, options: options, kinds: kinds)
        }
        guard let previewDecoder else { return .barren }
        do {
            return .fed(previewDecoder, try previewDecoder.preview(appending: batch))
        } catch {
            return .barren
        }
    }
}
