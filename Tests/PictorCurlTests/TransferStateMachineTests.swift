@testable import PictorCurl
import Testing

/// The exchange lifecycle without I/O: every transition and the action it asks for. The
/// continuation is a plain `Int`, so a test can see which one an action carries.
@Suite struct TransferStateMachineTests {
    typealias Machine = TransferStateMachine<Int>

    @Test func aNormalExchangeIsSubmittedRunAndResumedOnce() {
        var machine = Machine()
        guard case .submit = machine.enqueue(7) else { Issue.record("not submitted"); return }
        #expect(machine.isWaiting)
        guard case .run = machine.start() else { Issue.record("not run"); return }
        #expect(machine.isWaiting)
        guard case .resume(let continuation) = machine.finish(succeeded: true) else { Issue.record("not resumed"); return }
        #expect(continuation == 7)
        guard case .finished = machine.state else { Issue.record("not finished: \(machine.state)"); return }
        #expect(!machine.isWaiting)
        // A second finish or a late cancel resumes nothing.
        guard case .discard = machine.finish(succeeded: false) else { Issue.record("resumed twice"); return }
        guard case .none = machine.cancel() else { Issue.record("cancel after finish acted"); return }
    }

    @Test func aFailureEndsInFailed() {
        var machine = Machine()
        _ = machine.enqueue(1)
        _ = machine.start()
        guard case .resume(1) = machine.finish(succeeded: false) else { Issue.record("not resumed"); return }
        guard case .failed = machine.state else { Issue.record("not failed: \(machine.state)"); return }
    }

    @Test func cancellingBeforeEnqueueResumesAtEnqueueWithoutSubmitting() {
        var machine = Machine()
        guard case .none = machine.cancel() else { Issue.record("cancel of an idle exchange acted"); return }
        guard case .resumeCancelled(let continuation) = machine.enqueue(3) else { Issue.record("submitted after cancel"); return }
        #expect(continuation == 3)
        guard case .skip = machine.start() else { Issue.record("started after cancel"); return }
        guard case .discard = machine.finish(succeeded: true) else { Issue.record("resumed after cancel"); return }
    }

    @Test func cancellingAQueuedExchangeResumesAndTheEventThreadSkipsIt() {
        var machine = Machine()
        _ = machine.enqueue(4)
        guard case .resumeCancelled(4) = machine.cancel() else { Issue.record("wrong cancel action"); return }
        guard case .cancelled = machine.state else { Issue.record("not cancelled: \(machine.state)"); return }
        guard case .skip = machine.start() else { Issue.record("a cancelled exchange started"); return }
    }

    @Test func cancellingARunningExchangeResumesAndRemovesTheHandle() {
        var machine = Machine()
        _ = machine.enqueue(5)
        _ = machine.start()
        guard case .resumeCancelledAndRemove(5) = machine.cancel() else { Issue.record("wrong cancel action"); return }
        // The transfer's own end, arriving later, is dropped.
        guard case .discard = machine.finish(succeeded: true) else { Issue.record("resumed twice"); return }
        guard case .none = machine.cancel() else { Issue.record("second cancel acted"); return }
    }

    @Test func aQueuedExchangeCanFailBeforeItStarts() {
        // A shut-down transport fails exchanges it never started.
        var machine = Machine()
        _ = machine.enqueue(6)
        guard case .resume(6) = machine.finish(succeeded: false) else { Issue.record("not resumed"); return }
        guard case .skip = machine.start() else { Issue.record("started after failing"); return }
    }

    @Test func startIsOnlyForQueuedExchanges() {
        var machine = Machine()
        guard case .skip = machine.start() else { Issue.record("an idle exchange started"); return }
        _ = machine.enqueue(8)
        _ = machine.start()
        guard case .skip = machine.start() else { Issue.record("started twice"); return }
    }
}
