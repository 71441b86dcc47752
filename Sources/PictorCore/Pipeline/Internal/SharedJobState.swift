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
    /// The first subscriber, kept inline, and the others in subscription order: almost every
    /// job has one subscriber, and an array (or a dictionary) costs an allocation per job (the
    /// bookkeeping rows of the benchmark suite, `pipeline.bookkeeping.*`).
    private var first: (id: Int, subscriber: Subscriber)?
    private var rest: [(id: Int, subscriber: Subscriber)] = []

    /// The subscribers with their identifiers, in subscription order.
    var entries: [(id: Int, subscriber: Subscriber)] { (first.map { [$0] } ?? []) + rest }

    /// The subscribers, in subscription order.
    var subscribers: [Subscriber] { entries.map(\.subscriber) }

    /// The number of subscribers.
    var count: Int { (first == nil ? 0 : 1) + rest.count }

    /// Whether some subscriber satisfies `predicate`.
    func contains(where predicate: (Subscriber) -> Bool) -> Bool {
        if let first, predicate(first.subscriber) { return true }
        return rest.contains { predicate($0.subscriber) }
    }

    init() {}

    /// Whether the job accepts no more subscribers.
    var isClosed: Bool { if case .closed = phase { true } else { false } }

    /// Adds a subscriber; `false` when the job is closed (the caller starts fresh work).
    mutating func subscribe(id: Int, _ subscriber: Subscriber) -> Bool {
        guard !isClosed else { return false }
        if first?.id == id {
            first?.subscriber = subscriber
        } else if let index = rest.firstIndex(where: { $0.id == id }) {
            rest[index].subscriber = subscriber
        } else if first == nil {
            first = (id, subscriber)
        } else {
            rest.append((id, subscriber))
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
        let subscriber: Subscriber
        if let first, first.id == id {
            subscriber = first.subscriber
            self.first = rest.isEmpty ? nil : rest.removeFirst()
        } else if let index = rest.firstIndex(where: { $0.id == id }) {
            subscriber = rest.remove(at: index).subscriber
        } else {
            return .none
        }
        guard count == 0, !isClosed else { return .cancelSubscriber(subscriber) }
        let work: Work? = if case .running(let work) = phase { work } else { nil }
        phase = .closed
        return .cancelSubscriberAndWork(subscriber, work)
    }

    /// The subscribers a finished job delivers to: the first apart, so that a job with one
    /// subscriber builds no array.
    struct Delivery {
        var first: Subscriber?
        var rest: [Subscriber]
        /// All of them, in subscription order.
        var all: [Subscriber] { (first.map { [$0] } ?? []) + rest }
    }

    /// Closes the job with its outcome; returns the subscribers to deliver it to.
    mutating func finish() -> Delivery {
        phase = .closed
        defer { first = nil; rest.removeAll() }
        return Delivery(first: first?.subscriber, rest: rest.map(\.subscriber))
    }
}
