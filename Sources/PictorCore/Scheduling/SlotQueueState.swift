/// The bookkeeping of a bounded, priority-ordered queue of work, with no I/O and no locking:
/// every mutating call returns what the caller must do (resume a waiter, or nothing), so the
/// rules are unit-tested on their own and ``PriorityQueue`` only applies the actions.
///
/// - At most ``width`` items hold a slot.
/// - Background items (a priority below ``RequestPriority/normal``: prefetches) hold at most
///   ``backgroundLimit`` of them, so that background work never takes every slot and a visible
///   request always finds one free or freed next.
/// - Waiting items are served highest priority first and, within a priority, first come,
///   first served. A newcomer never overtakes a waiting item it could otherwise pass.
///
/// An item is background or not by its priority when it takes its slot, and keeps that class
/// until it releases the slot (a prefetch that a visible request joins later still counts as
/// background until it ends).
struct SlotQueueState<Waiter> {
    /// What ``acquire(id:priority:waiter:)`` decided.
    enum AcquireAction: Equatable {
        /// A slot was free and is now held by the caller: run. `background` is its class, to
        /// pass back to ``release(background:)``.
        case run(background: Bool)
        /// No slot: the waiter was queued; it is handed out by a later ``release(background:)``
        /// or ``reprioritize(id:to:)``.
        case wait
    }

    /// A waiter that now holds a slot, and its class (for its ``release(background:)``).
    struct Handover {
        let waiter: Waiter
        let background: Bool
    }

    private struct Entry {
        let id: Int
        let waiter: Waiter
    }

    /// Slots, at least 1.
    let width: Int
    /// Slots background items may hold at once, between 1 and ``width``.
    let backgroundLimit: Int
    /// Slots held now.
    private(set) var running = 0
    /// Slots held now by background items.
    private(set) var runningBackground = 0
    private var queues: [[Entry]] = Array(repeating: [], count: RequestPriority.allCases.count)
    private var heads: [Int] = Array(repeating: 0, count: RequestPriority.allCases.count)
    private var priorities: [Int: RequestPriority] = [:]

    /// - Parameters:
    ///   - width: slots (clamped to at least 1).
    ///   - backgroundLimit: slots background items may hold (clamped to 1...width); `nil` for
    ///     every slot.
    init(width: Int, backgroundLimit: Int? = nil) {
        self.width = max(1, width)
        self.backgroundLimit = min(self.width, max(1, backgroundLimit ?? self.width))
    }

    /// Whether an item of `priority` is background work.
    static func isBackground(_ priority: RequestPriority) -> Bool { priority < .normal }

    /// Items waiting for a slot.
    var waitingCount: Int { priorities.count }

    /// Takes a slot for `id`, or queues `waiter` at `priority` when none may be taken (every
    /// slot is held; or it is background work, and background items hold their limit or
    /// others already wait).
    mutating func acquire(id: Int, priority: RequestPriority, waiter: Waiter) -> AcquireAction {
        if let background = tryAcquire(priority: priority) { return .run(background: background) }
        queues[priority.rawValue].append(Entry(id: id, waiter: waiter))
        priorities[id] = priority
        return .wait
    }

    /// Takes a slot when an item of `priority` may run now, without queueing anything: returns
    /// whether it is background work, or `nil` when it would have to wait (then call
    /// ``acquire(id:priority:waiter:)``, which queues it).
    mutating func tryAcquire(priority: RequestPriority) -> Bool? {
        let background = Self.isBackground(priority)
        // A waiting item only ever waits because it may not run: while a slot is free, those
        // waiting are background items held by the limit, which a visible newcomer passes and
        // a background newcomer queues behind.
        let mayRun = running < width && (!background || (runningBackground < backgroundLimit && !hasBackgroundWaiters))
        guard mayRun else { return nil }
        take(background: background)
        return background
    }

    /// Frees a slot held by an item of the given class. Returns the waiter that now holds it
    /// (the caller resumes it), or `nil` when no waiter may take it.
    mutating func release(background: Bool) -> Handover? {
        running = max(0, running - 1)
        if background { runningBackground = max(0, runningBackground - 1) }
        return handOver()
    }

    /// Removes the waiting item `id` (its task was cancelled). Returns its waiter (the caller
    /// resumes it with `CancellationError`), or `nil` when it no longer waits (it already holds
    /// a slot, or was never queued).
    mutating func cancel(id: Int) -> Waiter? {
        guard let priority = priorities.removeValue(forKey: id) else { return nil }
        return remove(id: id, from: priority.rawValue)?.waiter
    }

    /// Moves the waiting item `id` to `priority`, behind the items already waiting there.
    /// No-op when it does not wait or the priority is unchanged. Returns a waiter that may now
    /// take a free slot (a background item raised to a visible priority while only the
    /// background limit held it), which the caller resumes.
    mutating func reprioritize(id: Int, to priority: RequestPriority) -> Handover? {
        guard let old = priorities[id], old != priority, let entry = remove(id: id, from: old.rawValue) else { return nil }
        queues[priority.rawValue].append(entry)
        priorities[id] = priority
        return handOver()
    }

    private var hasBackgroundWaiters: Bool {
        RequestPriority.allCases.contains { Self.isBackground($0) && heads[$0.rawValue] < queues[$0.rawValue].count }
    }

    private mutating func take(background: Bool) {
        running += 1
        if background { runningBackground += 1 }
    }

    /// The highest-priority, oldest waiter that may take a free slot, now holding it.
    private mutating func handOver() -> Handover? {
        guard running < width else { return nil }
        for p in queues.indices.reversed() where heads[p] < queues[p].count {
            let background = Self.isBackground(RequestPriority(rawValue: p)!)
            // Lower priorities are background too: none of them may run either.
            if background && runningBackground >= backgroundLimit { return nil }
            let entry = queues[p][heads[p]]
            heads[p] += 1
            if heads[p] > 64, heads[p] * 2 > queues[p].count {
                queues[p].removeFirst(heads[p])
                heads[p] = 0
            }
            priorities[entry.id] = nil
            take(background: background)
            return Handover(waiter: entry.waiter, background: background)
        }
        return nil
    }

    private mutating func remove(id: Int, from p: Int) -> Entry? {
        guard let index = queues[p][heads[p]...].firstIndex(where: { $0.id == id }) else { return nil }
        return queues[p].remove(at: index)
    }
}
