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
    /// Whether the priority never changes: then nobody is told of changes, and observing it
    /// registers nothing. Most requests (`image(for:)`, `data(for:)`, a prefetch) have such a
    /// priority; only an ``ImageTask``'s can be changed while it runs. Registering an observer
    /// costs an allocation and a weak reference per shared job
    /// (`pipeline.bookkeeping.instant-transport` in the benchmark suite).
    package let isFixed: Bool

    /// Creates a handle at `priority`.
    ///
    /// - Parameters:
    ///   - priority: the priority.
    ///   - isFixed: `true` when it will never be updated (``update(_:)`` then traps in debug
    ///     builds and is ignored otherwise).
    package init(_ priority: RequestPriority, isFixed: Bool = false) {
        state = Mutex(State(value: priority))
        self.isFixed = isFixed
    }

    /// A handle at `priority` that never changes, shared by every caller that asks for one:
    /// most requests have such a priority, and a handle of their own cost an allocation each
    /// (`pipeline.bookkeeping.instant-transport` in the benchmark suite).
    package static func fixed(_ priority: RequestPriority) -> PriorityHandle {
        fixedHandles[priority.rawValue]
    }

    private static let fixedHandles = RequestPriority.allCases.map { PriorityHandle($0, isFixed: true) }

    /// The current priority.
    package var value: RequestPriority { state.withLock { $0.value } }

    /// Changes the priority and notifies observers (outside the lock) when it differs.
    package func update(_ priority: RequestPriority) {
        assert(!isFixed, "a fixed priority is never updated")
        guard !isFixed else { return }
        let observers: [@Sendable (RequestPriority) -> Void] = state.withLock {
            guard $0.value != priority else { return [] }
            $0.value = priority
            return $0.observers
        }
        for observer in observers { observer(priority) }
    }

    /// Registers a closure called with each new priority.
    package func onChange(_ observer: @escaping @Sendable (RequestPriority) -> Void) {
        guard !isFixed else { return }
        state.withLock { $0.observers.append(observer) }
    }
}
