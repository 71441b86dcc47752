import Foundation
import Synchronization

/// Shows prefetch progress: a bar redrawn in place on a terminal, else a plain line every 10%.
final class ProgressReporter: Sendable {
    private let total: Int
    private let console: Console
    private let state = Mutex((done: 0, failed: 0, lastLine: -1))
    private let start = ContinuousClock.now

    init(total: Int, console: Console) {
        self.total = total
        self.console = console
    }

    func advance(failed: Bool) {
        let (done, failedCount, shouldPrint) = state.withLock { s -> (Int, Int, Bool) in
            s.done += 1
            if failed { s.failed += 1 }
            let step = max(1, total / 10)
            let bucket = s.done / step
            let printLine = console.isTerminal || bucket != s.lastLine || s.done == total
            if printLine { s.lastLine = bucket }
            return (s.done, s.failed, printLine)
        }
        guard shouldPrint else { return }
        let rate = Double(done) / max((ContinuousClock.now - start).seconds, 1e-6)
        if console.isTerminal {
            let width = 30
            let filled = total == 0 ? width : width * done / total
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            console.write("\r\(bar) \(done)/\(total)  \(failedCount) failed  \(String(format: "%.0f", rate)) img/s ")
        } else {
            console.print("progress: \(done)/\(total) done, \(failedCount) failed, \(String(format: "%.1f", rate)) img/s")
        }
    }

    func finish() {
        if console.isTerminal { console.write("\n") }
    }
}
