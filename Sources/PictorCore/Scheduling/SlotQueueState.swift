/// The bookkeeping of a bounded, priority-ordered queue of work, with no I/O and no locking:
/// every mutating call returns what the caller must do (resume a waiter, or nothing), so the
/// rules are unit-tested on their own and ``PriorityQueue`` only applies the actions.
///
/// At most ``width`` items hold a slot; waiting items are served highest priority first and,
/// within a priority, first come, first served.
struct SlotQueueState<Waiter> {
    /// What ``acquire(id:priority:waiter:)`` decided.
    enum AcquireAction: Equatable {
        /// A slot was free and is now held by the caller: run.
        case run
        /// No slot: the waiter was queued; it is handed out by a later ``release()``.
        case wait
    }

    private struct Entry {
        let id: Int
        let waiter: Waiter
    }

    /// Slots, at least 1.
    let width: Int
    /// Slots held now.
    private(set) var running = 0
    private var queues: [[Entry]] = Array(repeating: [], count: RequestPriority.allCases.count)
    private var heads: [Int] = Array(repeating: 0, count: RequestPriority.allCases.count)
    private var priorities: [Int: RequestPriority] = [:]

    init(width: Int) { self.width = max(1, width) }

    /// Items waiting for a slot.
    var waitingCount: Int { priorities.count }

    /// Takes a slot for `id`, or queues `waiter` at `priority` when none is free (or when others
    /// already wait, so a newcomer never overtakes a queued item of its own priority).
    mutating func acquire(id: Int, priority: RequestPriority, waiter: Waiter) -> AcquireAction {
        if running < width, priorities.isEmpty {
            running += 1
            return .run
        }
        queues[priority.rawValue].append(Entry(id: id, waiter: waiter))
        priorities[id] = priority
        return .wait
    }

    /// Frees a slot. Returns the waiter that now holds it (the caller resumes it), or `nil`
    /// when nobody waits and the slot is simply free.
    mutating func release() -> Waiter? {
        if let next = popHighest() { return next }
        running = max(0, running - 1)
        return nil
    }

    /// Removes the waiting item `id` (its task was cancelled). Returns its waiter (the caller
    /// resumes it with `CancellationError`), or `nil` when it no longer waits (it already holds
    /// a slot, or was never queued).
    mutating func cancel(id: Int) -> Waiter? {
        guard let priority = priorities.removeValue(forKey: id) else { return nil }
        return remove(id: id, from: priority.rawValue)?.waiter
    }

    /// Moves the waiting item `id` to `priority`, behind the items already waiting there.
    /// No-op when it does not wait or the priority is unchanged.
    mutating func reprioritize(id: Int, to priority: RequestPriority) {
        guard let old = priorities[id], old != priority, let entry = remove(id: id, from: old.rawValue) else { return }
        queues[priority.rawValue].append(entry)
        priorities[id] = priority
    }

    private mutating func popHighest() -> Waiter? {
        for p in queues.indices.reversed() where heads[p] < queues[p].count {
            let entry = queues[p][heads[p]]
            heads[p] += 1
            if heads[p] > 64, heads[p] * 2 > queues[p].count {
                queues[p].removeFirst(heads[p])
                heads[p] = 0
            }
            priorities[entry.id] = nil
            return entry.waiter
        }
        return nil
    }

    private mutating func remove(id: Int, from p: Int) -> Entry? {
        guard let index = queues[p][heads[p]...].firstIndex(where: { $0.id == id }) else { return nil }
        return queues[p].remove(at: index)
    }
}
