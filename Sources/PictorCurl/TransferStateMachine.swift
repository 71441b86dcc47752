/// The lifecycle of one exchange, shared by the calling task (``enqueue(_:)``, ``cancel()``) and
/// the event thread (``start()``, ``finish(succeeded:)``).
///
/// Each mutating transition returns what the caller must do next; the machine itself performs
/// no I/O and resumes nothing, so it can run under a lock and be tested on its own. The caller
/// acts on the returned action after leaving the lock. Whoever moves the machine into a terminal
/// state gets the continuation, so the caller is resumed exactly once.
///
/// ```
/// idle ──enqueue──▶ queued ──start──▶ running ──finish──▶ finished | failed
///   │                 │                  │
///   └────cancel───────┴──────cancel──────┴──▶ cancelled
/// ```
struct TransferStateMachine<Continuation> {
    enum State {
        /// Created; the caller has not handed over its continuation yet.
        case idle
        /// Handed to the event thread, which has not created its easy handle yet.
        case queued(Continuation)
        /// The easy handle is in the multi handle.
        case running(Continuation)
        /// The caller got its response.
        case finished
        /// The caller got an error other than cancellation.
        case failed
        /// The caller got `CancellationError`.
        case cancelled
    }

    private(set) var state: State = .idle

    /// What to do after ``enqueue(_:)``.
    enum EnqueueAction {
        /// Post the exchange to the event thread.
        case submit
        /// The task was cancelled first: resume the continuation with `CancellationError`
        /// without touching the network.
        case resumeCancelled(Continuation)
    }

    /// What to do after ``cancel()``.
    enum CancelAction {
        /// Nothing: not started yet, or already over.
        case none
        /// Resume with `CancellationError`; the event thread has no handle yet and skips the
        /// exchange when it gets to it.
        case resumeCancelled(Continuation)
        /// Resume with `CancellationError`, and ask the event thread to remove the easy handle.
        case resumeCancelledAndRemove(Continuation)
    }

    /// What to do after ``start()``.
    enum StartAction {
        /// Create the easy handle and add it.
        case run
        /// The caller is gone (cancelled): create nothing.
        case skip
    }

    /// What to do after ``finish(succeeded:)``.
    enum FinishAction {
        /// Resume the continuation with the result.
        case resume(Continuation)
        /// The caller was already resumed (cancelled): drop the result.
        case discard
    }

    /// Whether the caller still waits for a result.
    var isWaiting: Bool {
        switch state {
        case .queued, .running: true
        case .idle, .finished, .failed, .cancelled: false
        }
    }

    /// The caller hands over its continuation.
    mutating func enqueue(_ continuation: Continuation) -> EnqueueAction {
        switch state {
        case .idle:
            state = .queued(continuation)
            return .submit
        case .cancelled:
            return .resumeCancelled(continuation)
        case .queued, .running, .finished, .failed:
            preconditionFailure("an exchange is enqueued once")
        }
    }

    /// The calling task was cancelled.
    mutating func cancel() -> CancelAction {
        switch state {
        case .idle:
            state = .cancelled
            return .none
        case .queued(let continuation):
            state = .cancelled
            return .resumeCancelled(continuation)
        case .running(let continuation):
            state = .cancelled
            return .resumeCancelledAndRemove(continuation)
        case .finished, .failed, .cancelled:
            return .none
        }
    }

    /// The event thread picks the exchange up.
    mutating func start() -> StartAction {
        switch state {
        case .queued(let continuation):
            state = .running(continuation)
            return .run
        case .idle, .running, .finished, .failed, .cancelled:
            return .skip
        }
    }

    /// The exchange ended (on the event thread, or before it got there, e.g. after a shutdown).
    mutating func finish(succeeded: Bool) -> FinishAction {
        switch state {
        case .queued(let continuation), .running(let continuation):
            state = succeeded ? .finished : .failed
            return .resume(continuation)
        case .idle, .finished, .failed, .cancelled:
            return .discard
        }
    }
}
