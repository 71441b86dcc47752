import Foundation
import Synchronization

/// A gate that suspended tasks wait at until it opens: the building block of the suspendable
/// fakes. Closed by ``close()``, opened by ``open()``; ``waitingCount`` tells how many tasks wait,
/// and ``waitUntil(waiting:)`` lets a test wait — without sleeping — until that many arrived.
///
/// Waiting is cancellable: a cancelled waiter leaves with `CancellationError`.
public final class AsyncGate: Sendable {
    private struct State {
        var isOpen: Bool
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var observers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextID = 0
    }
    private let state: Mutex<State>

    /// Creates a gate, open (the default) or closed.
    public init(isOpen: Bool = true) { state = Mutex(State(isOpen: isOpen)) }

    /// Whether tasks pass without waiting.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Number of tasks waiting at the gate now.
    public var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Closes the gate: later ``pass()`` calls wait.
    public func close() { state.withLock { $0.isOpen = false } }

    /// Opens the gate and releases every waiting task.
    public func open() {
        let waiters = state.withLock { s in
            s.isOpen = true
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Releases the tasks waiting now but keeps the gate closed for later ones.
    public func releaseWaiting() {
        let waiters = state.withLock { s in
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns at once when the gate is open; otherwise waits until it opens.
    ///
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    public func pass() async throws {
        let id: Int? = state.withLock { s in
            if s.isOpen { return nil }
            s.nextID += 1
            return s.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (passNow, ready) = state.withLock { s -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if s.isOpen || Task.isCancelled { return (true, []) }
                    s.waiters[id] = continuation
                    let count = s.waiters.count
                    let ready = s.observers.filter { $0.count <= count }.map(\.continuation)
                    s.observers.removeAll { $0.count <= count }
                    return (false, ready)
                }
                for observer in ready { observer.resume() }
                if passNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Waits until at least `count` tasks wait at the gate.
    public func waitUntil(waiting count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.waiters.count >= count { return true }
                s.observers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
