import Dispatch

/// Runs blocking work (encoding) on Dispatch threads, at most `width` at once, so that it
/// never holds a thread of the Swift cooperative pool (two threads on a two-core machine).
final class EncodeLane: Sendable {
    private let queue: DispatchQueue
    private let slots: DispatchSemaphore

    init(width: Int) {
        queue = DispatchQueue(label: "pictor.service.encode", attributes: .concurrent)
        slots = DispatchSemaphore(value: max(1, width))
    }

    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [slots] in
                slots.wait()
                defer { slots.signal() }
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
