import Pictor
import Synchronization

/// Writes one download's previews (`fetch --previews DIR`) beside the image's path, never in
/// its way: one write at a time, and while one runs only the newest preview that came meanwhile
/// waits (a preview a newer one replaced is worthless, and each is a full-size image). Once the
/// final image is there (``stop()``), no write starts: the previews still waiting are dropped,
/// and only the write already running may finish (``drained()``), after the final file.
final class PreviewFiles: Sendable {
    /// Where the writes are.
    private enum Phase {
        /// No write running.
        case idle
        /// A write running; `next` is the newest preview that came since it began.
        case writing(next: Image?, writer: Task<Void, Never>)
        /// The final image is there; `writer` is the write that was running then, if any.
        case stopped(writer: Task<Void, Never>?)
    }

    private struct State {
        var phase = Phase.idle
        var received = 0
        var written = 0
    }

    /// Previews counted and written, once ``drained()`` returns.
    struct Counts: Sendable, Equatable {
        /// Previews the task delivered.
        var received: Int
        /// Previews written to files (the others were replaced by newer ones, dropped by the
        /// final image, or failed with a warning).
        var written: Int
    }

    private let state = Mutex(State())
    /// Writes preview number `n` (1-based, in the order written) of `image`; a failure is
    /// reported by the closure itself and the preview not counted.
    private let write: @Sendable (_ image: Image, _ n: Int) async -> Bool

    /// - Parameter write: writes a preview as file number `n`, returning whether it did.
    init(write: @escaping @Sendable (_ image: Image, _ n: Int) async -> Bool) {
        self.write = write
    }

    /// A preview came: written now if no write runs, else kept as the next one, replacing the
    /// one kept before. Dropped once stopped.
    func received(_ image: Image) {
        state.withLock { s in
            switch s.phase {
            case .stopped:
                return
            case .writing(_, let writer):
                s.phase = .writing(next: image, writer: writer)
            case .idle:
                s.phase = .writing(next: nil, writer: Task { await self.writeFrom(image) })
            }
            s.received += 1
        }
    }

    /// The final image is there: no write starts from now on.
    func stop() {
        state.withLock { s in
            switch s.phase {
            case .idle: s.phase = .stopped(writer: nil)
            case .writing(_, let writer): s.phase = .stopped(writer: writer)
            case .stopped: break
            }
        }
    }

    /// Stops (if not yet), waits for the write that was running, and gives the counts.
    func drained() async -> Counts {
        stop()
        let writer = state.withLock { s -> Task<Void, Never>? in
            if case .stopped(let writer) = s.phase { return writer }
            return nil
        }
        await writer?.value
        return state.withLock { Counts(received: $0.received, written: $0.written) }
    }

    /// Writes `image`, then each newest preview that came meanwhile, until none waits or the
    /// writes are stopped. Only one runs at a time (the phase says which).
    private func writeFrom(_ image: Image) async {
        var image = image
        while true {
            let number = state.withLock { $0.written + 1 }
            if await write(image, number) { state.withLock { $0.written += 1 } }
            let next = state.withLock { s -> Image? in
                guard case .writing(let next, let writer) = s.phase else { return nil }
                s.phase = next == nil ? .idle : .writing(next: nil, writer: writer)
                return next
            }
            guard let next else { return }
            image = next
        }
    }
}
