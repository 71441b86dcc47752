import Foundation

/// When to skip an unhealthy dependency: closed (use it) until `threshold` consecutive failures,
/// then open (skip it) for `coolDown`, then half-open: one trial operation goes through while
/// the others are skipped; its success closes the breaker, its failure opens it again. No I/O and
/// no clock of its own: callers pass the time, so every transition is unit-tested.
struct CircuitBreaker: Sendable {
    enum State: Sendable, Equatable {
        case closed(failures: Int)
        case open(until: Double)
        /// A trial operation started at `since` is running; another may start when this one has
        /// not reported within the cool-down (it was cancelled, or hangs).
        case halfOpen(since: Double)
    }

    /// What the caller does with the operation it is about to start.
    enum Decision: Sendable, Equatable {
        case proceed
        case skip
    }

    /// A change worth telling the operator about (logged once, not per operation).
    enum Transition: Sendable, Equatable {
        case opened
        case closed
    }

    let threshold: Int
    /// Seconds.
    let coolDown: Double
    private(set) var state = State.closed(failures: 0)

    init(threshold: Int, coolDown: Double) {
        self.threshold = max(1, threshold)
        self.coolDown = max(0, coolDown)
    }

    /// Whether to start an operation at `now` (seconds on a monotonic clock).
    mutating func decide(now: Double) -> Decision {
        switch state {
        case .closed:
            return .proceed
        case .open(let until):
            guard now >= until else { return .skip }
            state = .halfOpen(since: now)
            return .proceed
        case .halfOpen(let since):
            guard now - since >= coolDown else { return .skip }
            state = .halfOpen(since: now)
            return .proceed
        }
    }

    /// An operation succeeded.
    mutating func succeeded() -> Transition? {
        switch state {
        case .closed(let failures):
            if failures > 0 { state = .closed(failures: 0) }
            return nil
        case .halfOpen:
            state = .closed(failures: 0)
            return .closed
        case .open:
            // An operation started before the breaker opened came back fine: only the trial
            // after the cool-down may close it, or a flapping tier would log an outage per flap.
            return nil
        }
    }

    /// An operation failed at `now`.
    mutating func failed(now: Double) -> Transition? {
        switch state {
        case .closed(let failures):
            guard failures + 1 >= threshold else {
                state = .closed(failures: failures + 1)
                return nil
            }
            state = .open(until: now + coolDown)
            return .opened
        case .halfOpen:
            state = .open(until: now + coolDown)
            return nil
        case .open:
            // A late failure of an operation started before the breaker opened.
            return nil
        }
    }
}
