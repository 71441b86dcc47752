@testable import PictorCore
import Testing

/// The one priority queue's rules, with no threads and no I/O.
@Suite struct SlotQueueStateTests {
    @Test func runsUpToItsWidthThenQueues() {
        var queue = SlotQueueState<String>(width: 2)
        do { let result = queue.acquire(id: 1, priority: .normal, waiter: "a"); #expect(result == .run(background: false)) }
        do { let result = queue.acquire(id: 2, priority: .normal, waiter: "b"); #expect(result == .run(background: false)) }
        do { let result = queue.acquire(id: 3, priority: .normal, waiter: "c"); #expect(result == .wait) }
        #expect(queue.running == 2)
        #expect(queue.waitingCount == 1)
    }

    @Test func tryingTakesAFreeSlotAndNeverQueues() {
        var queue = SlotQueueState<String>(width: 2, backgroundLimit: 1)
        do { let result = queue.tryAcquire(priority: .low); #expect(result == true, "background work, within its limit") }
        do { let result = queue.tryAcquire(priority: .low); #expect(result == nil, "the background limit holds it") }
        do { let result = queue.tryAcquire(priority: .high); #expect(result == false) }
        do { let result = queue.tryAcquire(priority: .veryHigh); #expect(result == nil, "every slot is held") }
        #expect(queue.waitingCount == 0, "a refused try leaves nothing queued")
        #expect(queue.running == 2)
    }

    @Test func tryingNeverPassesABackgroundItemThatWaits() {
        var queue = SlotQueueState<String>(width: 3, backgroundLimit: 1)
        _ = queue.acquire(id: 0, priority: .low, waiter: "running")
        _ = queue.acquire(id: 1, priority: .low, waiter: "held by the limit")
        do { let result = queue.tryAcquire(priority: .veryLow); #expect(result == nil) }
        do { let result = queue.tryAcquire(priority: .normal); #expect(result == false, "a visible item passes it") }
    }

    @Test func releaseHandsTheSlotToTheHighestPriorityThenTheOldest() {
        var queue = SlotQueueState<String>(width: 1)
        _ = queue.acquire(id: 0, priority: .normal, waiter: "running")
        _ = queue.acquire(id: 1, priority: .low, waiter: "low")
        _ = queue.acquire(id: 2, priority: .high, waiter: "high 1")
        _ = queue.acquire(id: 3, priority: .high, waiter: "high 2")
        do { let result = queue.releaseVisible(); #expect(result == "high 1") }
        do { let result = queue.releaseVisible(); #expect(result == "high 2") }
        do { let result = queue.releaseVisible(); #expect(result == "low") }
        #expect(queue.running == 1)
        do { let result = queue.releaseVisible(); #expect(result == nil) }
        #expect(queue.running == 0)
    }

    @Test func aNewcomerNeverOvertakesWaitersEvenWhenASlotLooksFree() {
        var queue = SlotQueueState<String>(width: 1)
        _ = queue.acquire(id: 0, priority: .normal, waiter: "running")
        _ = queue.acquire(id: 1, priority: .normal, waiter: "queued")
        // The slot is handed over on release; the count never drops to zero in between.
        do { let result = queue.releaseVisible(); #expect(result == "queued") }
        do { let result = queue.acquire(id: 2, priority: .veryHigh, waiter: "late"); #expect(result == .wait) }
    }

    @Test func reprioritizingMovesAWaiterBehindThoseAlreadyThere() {
        var queue = SlotQueueState<String>(width: 1)
        _ = queue.acquire(id: 0, priority: .normal, waiter: "running")
        _ = queue.acquire(id: 1, priority: .high, waiter: "high")
        _ = queue.acquire(id: 2, priority: .veryLow, waiter: "raised")
        _ = queue.acquire(id: 3, priority: .normal, waiter: "normal")
        #expect(queue.reprioritize(id: 2, to: .high) == nil, "every slot is held")
        #expect(queue.reprioritize(id: 3, to: .normal) == nil)   // unchanged: no-op
        #expect(queue.reprioritize(id: 99, to: .high) == nil)    // unknown: no-op
        do { let result = queue.releaseVisible(); #expect(result == "high") }
        do { let result = queue.releaseVisible(); #expect(result == "raised") }
        do { let result = queue.releaseVisible(); #expect(result == "normal") }
    }

    @Test func cancellingAWaiterRemovesItAndReturnsItOnce() {
        var queue = SlotQueueState<String>(width: 1)
        _ = queue.acquire(id: 0, priority: .normal, waiter: "running")
        _ = queue.acquire(id: 1, priority: .normal, waiter: "cancelled")
        _ = queue.acquire(id: 2, priority: .normal, waiter: "next")
        do { let result = queue.cancel(id: 1); #expect(result == "cancelled") }
        do { let result = queue.cancel(id: 1); #expect(result == nil) }
        do { let result = queue.cancel(id: 0); #expect(result == nil, "a running item is not waiting") }
        do { let result = queue.releaseVisible(); #expect(result == "next") }
        #expect(queue.waitingCount == 0)
    }

    @Test func manyWaitersKeepTheirOrderAcrossCompaction() {
        var queue = SlotQueueState<Int>(width: 1)
        _ = queue.acquire(id: -1, priority: .normal, waiter: -1)
        for i in 0..<500 { _ = queue.acquire(id: i, priority: .normal, waiter: i) }
        var order: [Int] = []
        while let next = queue.releaseVisible() { order.append(next) }
        #expect(order == Array(0..<500))
    }

    @Test func widthIsAtLeastOne() {
        var queue = SlotQueueState<String>(width: 0)
        #expect(queue.width == 1)
        do { let result = queue.acquire(id: 1, priority: .normal, waiter: "a"); #expect(result == .run(background: false)) }
    }

    @Test func backgroundWorkHoldsAtMostItsLimitAndVisibleWorkTakesTheRest() {
        var queue = SlotQueueState<String>(width: 3, backgroundLimit: 2)
        #expect(queue.acquire(id: 1, priority: .low, waiter: "p1") == .run(background: true))
        #expect(queue.acquire(id: 2, priority: .veryLow, waiter: "p2") == .run(background: true))
        #expect(queue.acquire(id: 3, priority: .low, waiter: "p3") == .wait, "the background limit holds it")
        #expect(queue.running == 2)
        // A visible request passes the held prefetch: the free slot is its.
        #expect(queue.acquire(id: 4, priority: .normal, waiter: "visible") == .run(background: false))
        #expect(queue.acquire(id: 5, priority: .high, waiter: "late") == .wait, "every slot is held now")
        // A visible slot freed goes to the visible waiter, never to the held prefetch.
        #expect(queue.release(background: false)?.waiter == "late")
        // A background slot freed goes to the next prefetch.
        let next = queue.release(background: true)
        #expect(next?.waiter == "p3")
        #expect(next?.background == true)
        #expect(queue.runningBackground == 2)
    }

    @Test func aBackgroundNewcomerQueuesBehindHeldPrefetches() {
        var queue = SlotQueueState<String>(width: 4, backgroundLimit: 1)
        _ = queue.acquire(id: 1, priority: .low, waiter: "p1")
        _ = queue.acquire(id: 2, priority: .low, waiter: "p2")
        #expect(queue.acquire(id: 3, priority: .low, waiter: "p3") == .wait)
        #expect(queue.release(background: true)?.waiter == "p2", "first come, first served")
        #expect(queue.release(background: true)?.waiter == "p3")
        #expect(queue.release(background: true) == nil)
        #expect(queue.running == 0)
        #expect(queue.runningBackground == 0)
    }

    @Test func aHeldPrefetchRaisedToAVisiblePriorityTakesAFreeSlotAtOnce() {
        var queue = SlotQueueState<String>(width: 2, backgroundLimit: 1)
        _ = queue.acquire(id: 1, priority: .low, waiter: "p1")
        _ = queue.acquire(id: 2, priority: .low, waiter: "p2")
        let handover = queue.reprioritize(id: 2, to: .high)
        #expect(handover?.waiter == "p2")
        #expect(handover?.background == false, "it runs as visible work now")
        #expect(queue.running == 2)
        #expect(queue.runningBackground == 1)
    }

    @Test func theBackgroundLimitIsBetweenOneAndTheWidth() {
        #expect(SlotQueueState<String>(width: 3).backgroundLimit == 3)
        #expect(SlotQueueState<String>(width: 3, backgroundLimit: 9).backgroundLimit == 3)
        #expect(SlotQueueState<String>(width: 3, backgroundLimit: 0).backgroundLimit == 1)
    }
}

extension SlotQueueState {
    /// Frees a slot of a visible item; the waiter that takes it.
    fileprivate mutating func releaseVisible() -> Waiter? { release(background: false)?.waiter }
}
