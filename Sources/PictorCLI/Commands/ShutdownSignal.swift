import Dispatch
import Foundation
import Synchronization

/// The request to stop a long-running command (`serve`): SIGTERM (what service managers and
/// container runtimes send) or SIGINT (Ctrl-C). The first one starts a graceful stop; a second
/// one ends the process at once, with the signal's default action.
final class ShutdownSignal: Sendable {
    private struct State {
        var happened = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())
    private let signals: [Int32]
    // Dispatch sources are thread-safe; set once in `init`, cancelled in `stop()`.
    private nonisolated(unsafe) let sources: [any DispatchSourceSignal]

    /// Listens for `signals` (their default actions are suspended until ``stop()``); none for a
    /// signal that only ``trigger()`` raises (in-process tests).
    init(signals: [Int32] = [SIGTERM, SIGINT]) {
        self.signals = signals
        // A process started by another may inherit these signals blocked: unblock them, or
        // they would stay pending and the service would never stop.
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in signals { sigaddset(&mask, number) }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            sources.append(source)
        }
        self.sources = sources
        for (source, number) in zip(sources, signals) {
            source.setEventHandler { [weak self] in self?.received(number) }
            source.resume()
        }
    }

    /// Starts the stop, as the first signal does.
    func trigger() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.happened = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns once a signal arrived or ``trigger()`` was called.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.happened { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Stops listening and restores the signals' default actions.
    func stop() {
        sources.forEach { $0.cancel() }
        for number in signals { signal(number, SIG_DFL) }
    }

    private func received(_ number: Int32) {
        let again = state.withLock { $0.happened }
        guard !again else {
            // The second signal: the operator wants out now.
            signal(number, SIG_DFL)
            raise(number)
            return
        }
        trigger()
    }
}
