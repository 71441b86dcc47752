import Dispatch
import Foundation

/// A bounded queue for heavy synchronous work (decode, process, encode): a ``PriorityQueue``
/// for the order, and a serial Dispatch queue per item for the thread, so the work never
/// blocks the Swift cooperative pool.
///
/// Not one concurrent Dispatch queue: on Linux that runs its items on the threads of
/// Dispatch's non-overcommit root queue, one per core, which are the cooperative pool's own, so
/// a queue as wide as the machine, busy with long resizes or encodes, starved every task (a
/// request's deadline fired only when an encode ended). A serial queue targets the overcommit
/// root queue, which starts a thread when none is idle; the slots bound how many run.
///
/// A waiting item whose Swift task is cancelled leaves the queue at once with
/// `CancellationError`, and so does one whose task is cancelled as it gets its slot; an item
/// that already runs completes.
final class WorkQueue: Sendable {
    private let slots: PriorityQueue
    private let label: String
    /// Told each wait for a slot (``ImagePipeline/Configuration/stageObserver``'s `queue`).
    private let waitObserver: (@Sendable (Duration) -> Void)?

    /// Maximum number of items running at once (≥ 1).
    var width: Int { slots.width }

    /// Creates a queue running at most `width` items at once (clamped to ≥ 1).
    init(width: Int, label: String, waitObserver: (@Sendable (Duration) -> Void)? = nil) {
        slots = PriorityQueue(width: width)
        self.label = label
        self.waitObserver = waitObserver
    }

    /// Runs `work` when a slot is free.
    ///
    /// - Returns: the work's result and the time spent waiting for a slot, in seconds.
    /// - Throws: what `work` throws, or `CancellationError` when cancelled while waiting or as
    ///   the slot is given.
    func execute<T: Sendable>(
        priority: PriorityHandle, _ work: @escaping @Sendable () throws -> T
    ) async throws -> (value: T, queueWait: Double) {
        let enqueued = ContinuousClock.now
        let slot = try await slots.acquire(priority: priority)
        let wait = ContinuousClock.now - enqueued
        waitObserver?(wait)
        let waited = wait.seconds
        defer { slots.release(slot) }
        // A slot handed over as its task was cancelled: the work is not started.
        try Task.checkCancellation()
        let value: T = try await withCheckedThrowingContinuation { continuation in
            // A queue per item (a small allocation, next to the work it runs): see the type.
            DispatchQueue(label: label).async {
                continuation.resume(with: Result { try work() })
            }
        }
        return (value, waited)
    }

    /// Items waiting for a slot (for tests).
    var waitingCount: Int { slots.waitingCount }
    /// Whether every slot is taken (for tests).
    var isBusy: Bool { slots.runningCount >= slots.width }

    /// Takes a slot (internal for tests).
    func acquire(priority: PriorityHandle) async throws -> PriorityQueue.Slot { try await slots.acquire(priority: priority) }
    /// Frees a slot taken by ``acquire(priority:)`` (internal for tests).
    func release(_ slot: PriorityQueue.Slot) { slots.release(slot) }
}

extension Duration {
    /// The duration in seconds, as a `Double`: the one conversion every module of the package
    /// uses (timers, deadlines, metrics).
    package var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) * 1e-18
    }
}
