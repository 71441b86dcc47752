import Foundation
import Synchronization

/// A priority that can change while work is queued: the scheduler reads ``value`` and registers
/// ``onChange(_:)`` to reorder its queue.
package final class PriorityHandle: Sendable {
    private struct State {
        var value: RequestPriority
        var observers: [@Sendable (RequestPriority) -> Void] = []
    }
    private let state: Mutex<State>

    /// Creates a handle at `priority`.
    package init(_ priority: RequestPriority) { state = Mutex(State(value: priority)) }

    /// The current priority.
    package var value: RequestPriority { state.withLock { $0.value } }

    /// Changes the priority and notifies observers (outside the lock) when it differs.
    package func update(_ priority: RequestPriority) {
        let observers: [@Sendable (RequestPriority) -> Void] = state.withLock {
            guard $0.value != priority else { return [] }
            $0.value = priority
            return $0.observers
        }
        for observer in observers { observer(priority) }
    }

    /// Registers a closure called with each new priority.
    package func onChange(_ observer: @escaping @Sendable (RequestPriority) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }
}
