@testable import PictorCore
import Testing

/// When the shared tier is skipped: after repeated failures, for a cool-down, then one trial.
@Suite struct CircuitBreakerTests {
    @Test func opensAfterTheThresholdOfConsecutiveFailures() {
        var breaker = CircuitBreaker(threshold: 3, coolDown: 10)
        #expect(breaker.decide(now: 0) == .proceed)
        #expect(breaker.failed(now: 0) == nil)
        #expect(breaker.failed(now: 1) == nil)
        #expect(breaker.failed(now: 2) == .opened)
        #expect(breaker.decide(now: 3) == .skip)
        #expect(breaker.decide(now: 11.9) == .skip)
    }

    @Test func aSuccessResetsTheCount() {
        var breaker = CircuitBreaker(threshold: 2, coolDown: 10)
        _ = breaker.failed(now: 0)
        #expect(breaker.succeeded() == nil)
        #expect(breaker.failed(now: 1) == nil)
        #expect(breaker.state == .closed(failures: 1))
    }

    @Test func afterTheCoolDownOneTrialGoesThroughAndDecides() {
        var breaker = CircuitBreaker(threshold: 1, coolDown: 10)
        #expect(breaker.failed(now: 0) == .opened)
        #expect(breaker.decide(now: 10) == .proceed)
        #expect(breaker.decide(now: 10.5) == .skip, "one trial at a time")
        #expect(breaker.failed(now: 11) == nil, "a failed trial opens it again without a second log line")
        #expect(breaker.decide(now: 12) == .skip)
        #expect(breaker.decide(now: 21) == .proceed)
        #expect(breaker.succeeded() == .closed)
        #expect(breaker.decide(now: 21.1) == .proceed)
    }

    @Test func aTrialThatNeverReportsDoesNotKeepTheBreakerHalfOpenForever() {
        var breaker = CircuitBreaker(threshold: 1, coolDown: 5)
        _ = breaker.failed(now: 0)
        #expect(breaker.decide(now: 5) == .proceed)
        #expect(breaker.decide(now: 9) == .skip)
        #expect(breaker.decide(now: 10) == .proceed)
    }

    @Test func lateReportsFromOperationsStartedBeforeOpeningAreHarmless() {
        var breaker = CircuitBreaker(threshold: 1, coolDown: 5)
        _ = breaker.failed(now: 0)
        #expect(breaker.failed(now: 1) == nil)
        #expect(breaker.succeeded() == nil, "a late success does not close it either")
        #expect(breaker.state == .open(until: 5))
        #expect(breaker.decide(now: 2) == .skip)
    }
}
