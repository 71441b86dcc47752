/// When one download's previews are decoded and delivered, with no I/O, clock or lock: the
/// rules of ``PreviewProducer``, unit-tested on their own.
///
/// `idle` (waiting for bytes) → `decoding` (one decode runs; bytes that arrive meanwhile wait
/// for it) → `idle` … → `closed` (the download ended: nothing is decoded or delivered any
/// more). A decode starts when bytes arrive and at least ``interval`` has passed since the last
/// preview was delivered; when a decode ends and bytes that arrived during it are due, the
/// next decode starts at once. A preview that a decode makes after the schedule closed is
/// dropped, so no preview follows the final image.
struct PreviewSchedule {
    private enum Phase {
        case idle
        case decoding
        case closed
    }

    /// The shortest time between two delivered previews.
    let interval: Duration
    private var phase = Phase.idle
    /// When the last preview was delivered, on the pipeline's monotonic clock.
    private(set) var lastDelivery: Duration?

    init(interval: Duration) {
        self.interval = interval
    }

    /// Whether the schedule is closed.
    var isClosed: Bool { if case .closed = phase { true } else { false } }

    /// Whether a decode runs now.
    var isDecoding: Bool { if case .decoding = phase { true } else { false } }

    /// Bytes arrived at `now`: `true` when a decode must start now (the schedule is then
    /// decoding until ``decodeEnded(now:hasPendingBytes:)``).
    mutating func bytesArrived(now: Duration) -> Bool {
        guard case .idle = phase, isDue(now) else { return false }
        phase = .decoding
        return true
    }

    /// A decode made a preview at `now`: `true` when it is delivered (it is then the last
    /// delivery), `false` when the schedule closed meanwhile (the preview is dropped).
    mutating func previewMade(now: Duration) -> Bool {
        guard !isClosed else { return false }
        lastDelivery = now
        return true
    }

    /// The running decode ended: `true` when another must start at once (bytes arrived during
    /// it and are due), leaving the schedule decoding; otherwise it waits for bytes.
    mutating func decodeEnded(now: Duration, hasPendingBytes: Bool) -> Bool {
        guard case .decoding = phase else { return false }
        if hasPendingBytes, isDue(now) { return true }
        phase = .idle
        return false
    }

    /// The download ended (or failed, or was cancelled): nothing more is decoded or delivered.
    mutating func close() { phase = .closed }

    private func isDue(_ now: Duration) -> Bool {
        guard let lastDelivery else { return true }
        return now - lastDelivery >= interval
    }
}
