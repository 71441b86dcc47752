@testable import PictorCore
import Testing

/// The lifecycle of shared work, with no tasks and no I/O (`Work` is a plain string here).
@Suite struct SharedJobStateTests {
    @Test func subscribersJoinUntilTheJobFinishes() {
        var job = SharedJobState<String, String>()
        do { let result = job.subscribe(id: 1, "a"); #expect(result) }
        do { let result = job.start("work"); #expect(result == nil) }
        do { let result = job.subscribe(id: 2, "b"); #expect(result) }
        do { let result = Set(job.finish().all); #expect(result == ["a", "b"]) }
        #expect(job.isClosed)
        do { let result = job.subscribe(id: 3, "late"); #expect(!result, "a finished job starts fresh work instead") }
        #expect(job.subscribers.isEmpty)
    }

    @Test func theLastSubscriberLeavingCancelsTheWorkAndClosesTheJob() {
        var job = SharedJobState<String, String>()
        _ = job.subscribe(id: 1, "a")
        _ = job.subscribe(id: 2, "b")
        _ = job.start("work")
        guard case .cancelSubscriber("a") = job.unsubscribe(id: 1) else { Issue.record("expected cancelSubscriber"); return }
        #expect(!job.isClosed)
        guard case .cancelSubscriberAndWork("b", "work"?) = job.unsubscribe(id: 2) else { Issue.record("expected cancel work"); return }
        #expect(job.isClosed)
        do { let result = job.subscribe(id: 3, "c"); #expect(!result) }
    }

    @Test func leavingTwiceOrUnknownDoesNothing() {
        var job = SharedJobState<String, String>()
        _ = job.subscribe(id: 1, "a")
        _ = job.subscribe(id: 2, "b")
        _ = job.unsubscribe(id: 1)
        guard case .none = job.unsubscribe(id: 1) else { Issue.record("expected none"); return }
        guard case .none = job.unsubscribe(id: 42) else { Issue.record("expected none"); return }
    }

    @Test func workStartedAfterEverySubscriberLeftIsCancelledAtOnce() {
        var job = SharedJobState<String, String>()
        _ = job.subscribe(id: 1, "a")
        guard case .cancelSubscriberAndWork("a", nil) = job.unsubscribe(id: 1) else { Issue.record("expected no work yet"); return }
        do { let result = job.start("work"); #expect(result == "work", "the caller cancels it") }
    }

    @Test func leavingAfterFinishDoesNotCancelAnything() {
        var job = SharedJobState<String, String>()
        _ = job.subscribe(id: 1, "a")
        _ = job.start("work")
        _ = job.finish()
        guard case .none = job.unsubscribe(id: 1) else { Issue.record("expected none"); return }
    }
}
