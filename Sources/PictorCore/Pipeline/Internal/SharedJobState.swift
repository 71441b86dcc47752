/// The lifecycle of one piece of shared work, with no I/O and no locking: which subscribers
/// wait, whether the work runs, and when it is closed. Each mutating call returns what the
/// caller must do, so ``SharedJob`` only applies the actions and the rules are unit-tested on
/// their own.
///
/// `pending` (created, work not started yet) → `running` (work started) → `closed` (finished,
/// or cancelled with its last subscriber). A closed job accepts no subscriber: its pool starts
/// fresh work for later callers.
struct SharedJobState<Subscriber, Work> {
    private enum Phase {
        case pending
        case running(Work)
        case closed
    }

    /// What ``unsubscribe(id:)`` decided.
    enum UnsubscribeAction {
        /// Not a subscriber (already removed or never added): nothing to do.
        case none
        /// Fail this subscriber with `CancellationError`; others remain, so re-read the priority.
        case cancelSubscriber(Subscriber)
        /// Fail this subscriber; it was the last one, so cancel the work (if it was started)
        /// and drop the job from its pool.
        case cancelSubscriberAndWork(Subscriber, Work?)
    }

    private var phase = Phase.pending
    /// In subscription order. An array, not a dictionary: almost every job has one subscriber,
    /// and a dictionary costs an allocation and hashing per job (the bookkeeping rows of the
    /// benchmark suite, `pipeline.bookkeeping.*`).
    private(set) var entries: [(id: Int, subscriber: Subscriber)] = []

    /// The subscribers, in subscription order.
    var subscribers: [Subscriber] { entries.map(\.subscriber) }

    init() {}

    /// Whether the job accepts no more subscribers.
    var isClosed: Bool { if case .closed = phase { true } else { false } }

    /// Adds a subscriber; `false` when the job is closed (the caller starts fresh work).
    mutating func subscribe(id: Int, _ subscriber: Subscriber) -> Bool {
        guard !isClosed else { return false }
        if let index = entries.firstIndex(where: { $0.id == id }) {
            entries[index].subscriber = subscriber
        } else {
            entries.append((id, subscriber))
        }
        return true
    }

    /// Records the started work. Returns it when it must be cancelled at once: every
    /// subscriber left before the work existed.
    mutating func start(_ work: Work) -> Work? {
        switch phase {
        case .pending:
            phase = .running(work)
            return nil
        case .running, .closed:
            return work
        }
    }

    /// Removes one subscriber.
    mutating func unsubscribe(id: Int) -> UnsubscribeAction {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return .none }
        let subscriber = entries.remove(at: index).subscriber
        guard entries.isEmpty, !isClosed else { return .cancelSubscriber(subscriber) }
        let work: Work? = if case .running(let work) = phase { work } else { nil }
        phase = .closed
        return .cancelSubscriberAndWork(subscriber, work)
    }

    /// Closes the job with its outcome; returns the subscribers to deliver it to.
    mutating func finish() -> [Subscriber] {
        phase = .closed
        defer { entries.removeAll() }
        return entries.map(\.subscriber)
    }
}
