import Dispatch
import Foundation
import Synchronization

/// Ctrl-C (SIGINT) during a long command: instead of dying mid-write, the command is told, stops
/// starting work, cancels what runs, and reports what it did (exit 130, the shell's code for a
/// SIGINT). A second Ctrl-C ends the process at once.
final class Interruption: Sendable {
    private struct State {
        var happened = false
        var handlers: [@Sendable () -> Void] = []
    }
    private let state = Mutex(State())
    // A dispatch source is thread-safe; it is set once in `init` and cancelled in `stop()`.
    private nonisolated(unsafe) let source: any DispatchSourceSignal

    /// Starts listening for SIGINT (its default action is suspended until ``stop()``).
    init() {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [weak self] in self?.interrupt() }
        source.resume()
    }

    /// Whether SIGINT arrived.
    var happened: Bool { state.withLock { $0.happened } }

    /// Runs `handler` on interruption (at once when it already happened).
    func onInterrupt(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if s.happened { return true }
            s.handlers.append(handler)
            return false
        }
        if now { handler() }
    }

    /// Waits for `work` to end, or for an interruption: then returns at once and leaves `work`
    /// running (the process is about to exit, and Ctrl-C must not wait for a slow origin).
    func untilInterrupted(_ work: @escaping @Sendable () async -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed = Mutex(false)
            let resume: @Sendable () -> Void = {
                let first = resumed.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume() }
            }
            onInterrupt(resume)
            Task {
                await work()
                resume()
            }
        }
    }

    /// Simulates a SIGINT (and is what the signal does).
    func interrupt() {
        let handlers = state.withLock { s -> [@Sendable () -> Void]? in
            guard !s.happened else { return nil }
            s.happened = true
            defer { s.handlers = [] }
            return s.handlers
        }
        guard let handlers else {
            // The second Ctrl-C: the user wants out now.
            signal(SIGINT, SIG_DFL)
            raise(SIGINT)
            return
        }
        handlers.forEach { $0() }
    }

    /// Stops listening and restores SIGINT's default action.
    func stop() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
