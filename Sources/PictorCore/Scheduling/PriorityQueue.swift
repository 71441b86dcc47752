import Synchronization

/// Bounded concurrency served by priority: the one queue type behind network transfers
/// (``DataLoader``), decoding and processing (``WorkQueue``). A prefetch
/// (``ImagePrefetcher``) waits in them as low-priority work, once its prefetcher, which still
/// bounds how many of its requests run at once with its own queue, has started it.
///
/// At most `width` items hold a slot at once; waiting ones start highest priority first, then
/// first come, first served. A waiting item follows its ``PriorityHandle``: raising the
/// priority of a queued request moves it forward. The rules live in ``SlotQueueState``; this
/// type only locks and resumes.
final class PriorityQueue: Sendable {
    private let state: Mutex<SlotQueueState<CheckedContinuation<Void, any Error>>>
    /// Slots, at least 1.
    let width: Int

    /// Creates a queue with `width` slots (clamped to at least 1).
    init(width: Int) {
        self.width = max(1, width)
        state = Mutex(SlotQueueState(width: width))
    }

    /// Waits for a slot. Pair every successful call with exactly one ``release()``.
    ///
    /// - Parameter priority: read when the item has to wait, and followed while it waits.
    /// - Throws: `CancellationError` when the calling task is cancelled before it got a slot
    ///   (then no slot is held).
    nonisolated(nonsending) func acquire(priority: PriorityHandle) async throws {
        let id = SubscriberIDs.next()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let action = state.withLock { s -> SlotQueueState<CheckedContinuation<Void, any Error>>.AcquireAction? in
                    if Task.isCancelled { return nil }
                    return s.acquire(id: id, priority: priority.value, waiter: continuation)
                }
                switch action {
                case .run?: continuation.resume()
                case .wait?: priority.onChange { [weak self] p in self?.state.withLock { $0.reprioritize(id: id, to: p) } }
                case nil: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            state.withLock { $0.cancel(id: id) }?.resume(throwing: CancellationError())
        }
    }

    /// Frees a slot, handing it to the next waiter if any.
    func release() {
        state.withLock { $0.release() }?.resume()
    }

    /// Runs `work` while holding a slot.
    ///
    /// - Throws: `CancellationError` when cancelled while waiting, or what `work` throws.
    nonisolated(nonsending) func withSlot<T: Sendable>(priority: PriorityHandle, _ work: () async throws -> T) async throws -> T {
        try await acquire(priority: priority)
        defer { release() }
        return try await work()
    }

    /// Items holding a slot now.
    var runningCount: Int { state.withLock { $0.running } }
    /// Items waiting for a slot.
    var waitingCount: Int { state.withLock { $0.waitingCount } }
}
