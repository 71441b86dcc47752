import Synchronization

/// Bounded concurrency served by priority: the one queue type behind network transfers
/// (``DataLoader``), decoding and processing (``WorkQueue``), and the one owner of their limits.
/// A prefetch (``ImagePrefetcher``) waits in them as background work.
///
/// At most `width` items hold a slot at once, and background items (below
/// ``RequestPriority/normal``) at most `backgroundLimit` of them; waiting ones start highest
/// priority first, then first come, first served. A waiting item follows its
/// ``PriorityHandle``: raising the priority of a queued request moves it forward. The rules live
/// in ``SlotQueueState``; this type only locks and resumes.
final class PriorityQueue: Sendable {
    /// A held slot: pass it back to ``release(_:)`` exactly once.
    struct Slot: Sendable {
        fileprivate let background: Bool
    }

    private typealias Waiter = CheckedContinuation<Bool, any Error>
    private let state: Mutex<SlotQueueState<Waiter>>
    /// Slots, at least 1.
    let width: Int
    /// Slots background items may hold at once (1...width).
    let backgroundLimit: Int

    /// Creates a queue with `width` slots (clamped to at least 1), of which background items
    /// may hold `backgroundLimit` (every slot when `nil`).
    init(width: Int, backgroundLimit: Int? = nil) {
        let rules = SlotQueueState<Waiter>(width: width, backgroundLimit: backgroundLimit)
        self.width = rules.width
        self.backgroundLimit = rules.backgroundLimit
        state = Mutex(rules)
    }

    /// Waits for a slot. Pair every successful call with exactly one ``release(_:)``.
    ///
    /// - Parameter priority: read when the item asks, and followed while it waits.
    /// - Returns: the slot to release.
    /// - Throws: `CancellationError` when the calling task is cancelled before it got a slot
    ///   (then no slot is held).
    nonisolated(nonsending) func acquire(priority: PriorityHandle) async throws -> Slot {
        // A free slot is taken without suspending: no continuation, no cancellation handler
        // (`pipeline.bookkeeping.instant-transport` in the benchmark suite, and every request
        // of a loader that is not full).
        if !Task.isCancelled, let background = state.withLock({ $0.tryAcquire(priority: priority.value) }) {
            return Slot(background: background)
        }
        let id = SubscriberIDs.next()
        let background = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                let action = state.withLock { s -> SlotQueueState<Waiter>.AcquireAction? in
                    if Task.isCancelled { return nil }
                    return s.acquire(id: id, priority: priority.value, waiter: continuation)
                }
                switch action {
                case .run(let background)?: continuation.resume(returning: background)
                case .wait?:
                    priority.onChange { [weak self] p in
                        guard let handover = self?.state.withLock({ $0.reprioritize(id: id, to: p) }) else { return }
                        handover.waiter.resume(returning: handover.background)
                    }
                case nil: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            state.withLock { $0.cancel(id: id) }?.resume(throwing: CancellationError())
        }
        return Slot(background: background)
    }

    /// Frees `slot`, handing it to the next waiter that may take it.
    func release(_ slot: Slot) {
        guard let handover = state.withLock({ $0.release(background: slot.background) }) else { return }
        handover.waiter.resume(returning: handover.background)
    }

    /// Runs `work` while holding a slot.
    ///
    /// - Throws: `CancellationError` when cancelled while waiting, or what `work` throws.
    nonisolated(nonsending) func withSlot<T: Sendable>(priority: PriorityHandle, _ work: nonisolated(nonsending) () async throws -> T) async throws -> T {
        let slot = try await acquire(priority: priority)
        defer { release(slot) }
        return try await work()
    }

    /// Items holding a slot now.
    var runningCount: Int { state.withLock { $0.running } }
    /// Background items holding a slot now.
    var runningBackgroundCount: Int { state.withLock { $0.runningBackground } }
    /// Items waiting for a slot.
    var waitingCount: Int { state.withLock { $0.waitingCount } }
}
