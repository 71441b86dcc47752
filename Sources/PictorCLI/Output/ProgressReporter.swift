import Foundation
import Synchronization

/// Shows prefetch progress on standard error (standard output carries the summary, or JSON):
/// a bar redrawn in place on a terminal, else a plain line every 10%; nothing when quiet.
final class ProgressReporter: Sendable {
    private let total: Int
    private let console: Console
    private let quiet: Bool
    private let state = Mutex((done: 0, failed: 0, lastLine: -1))
    private let start = ContinuousClock.now

    init(total: Int, console: Console, quiet: Bool = false) {
        self.total = total
        self.console = console
        self.quiet = quiet
    }

    func advance(failed: Bool) {
        guard !quiet else { return }
        let (done, failedCount, shouldPrint) = state.withLock { s -> (Int, Int, Bool) in
            s.done += 1
            if failed { s.failed += 1 }
            let step = max(1, total / 10)
            let bucket = s.done / step
            let printLine = console.isErrorTerminal || bucket != s.lastLine || s.done == total
            if printLine { s.lastLine = bucket }
            return (s.done, s.failed, printLine)
        }
        guard shouldPrint else { return }
        let rate = Double(done) / max((ContinuousClock.now - start).seconds, 1e-6)
        if console.isErrorTerminal {
            let width = 30
            let filled = total == 0 ? width : width * done / total
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let eta = rate > 0 ? Double(total - done) / rate : 0
            let percent = total == 0 ? 100 : 100 * done / total
            console.writeError("\r\(bar) \(percent)% \(done)/\(total)  \(failedCount) failed  \(Formatting.fixed(rate, digits: 0)) img/s  ETA \(Int(eta.rounded())) s ")
        } else {
            console.error("progress: \(done)/\(total) done, \(failedCount) failed, \(Formatting.fixed(rate, digits: 1)) img/s")
        }
    }

    func finish() {
        if console.isErrorTerminal && !quiet { console.writeError("\n") }
    }
}
