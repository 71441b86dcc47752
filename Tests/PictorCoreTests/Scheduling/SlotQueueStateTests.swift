@testable import PictorCore
import Testing

/// The one priority queue's rules, with no threads and no I/O.
@Suite struct SlotQueueStateTests {
    @Test func runsUpToItsWidthThenQueues() {
        var queue = SlotQueueState<String>(width: 2)
        do { let result = queue.acquire(id: 1, priority: .normal, waiter: "a"); #expect(result == .run) }
        do { let result = queue.acquire(id: 2, priority: .normal, waiter: "b"); #expect(result == .run) }
        do { let result = queue.acquire(id: 3, priority: .normal, waiter: "c"); #expect(result == .wait) }
        #expect(queue.running == 2)
        #expect(queue.waitingCount == 1)
    }

    @Test func releaseHandsTheSlotToTheHighestPriorityThenTheOldest() {
        var queue = SlotQueueState<String>(width: 1)
        _ = queue.acquire(id: 0, priority: .normal, waiter: "running")
        _ = queue.acquire(id: 1, priority: .low, waiter: "low")
        _ = queue.acquire(id: 2, priority: .high, waiter: "high 1")
        _ = queue.acquire(id: 3, priority: .high, waiter: "high 2")
        do { let result = queue.release(); #expect(result == "high 1") }
        do { let result = queue.release(); #expect(result == "high 2") }
        do { let result = queue.release(); #expect(result == "low") }
        #expect(queue.running == 1)
        do { let result = queue.release(); #expect(result == nil) }
        #expect(queue.running == 0)
    }

    @Test func aNewcomerNeverOvertakesWaitersEvenWhenASlotLooksFree() {
        var queue = SlotQueueState<String>(width: 1)
        _ = queue.acquire(id: 0, priority: .normal, waiter: "running")
        _ = queue.acquire(id: 1, priority: .normal, waiter: "queued")
        // The slot is handed over on release; the count never drops to zero in between.
        do { let result = queue.release(); #expect(result == "queued") }
        do { let result = queue.acquire(id: 2, priority: .veryHigh, waiter: "late"); #expect(result == .wait) }
    }

    @Test func reprioritizingMovesAWaiterBehindThoseAlreadyThere() {
        var queue = SlotQueueState<String>(width: 1)
        _ = queue.acquire(id: 0, priority: .normal, waiter: "running")
        _ = queue.acquire(id: 1, priority: .high, waiter: "high")
        _ = queue.acquire(id: 2, priority: .veryLow, waiter: "raised")
        _ = queue.acquire(id: 3, priority: .normal, waiter: "normal")
        queue.reprioritize(id: 2, to: .high)
        queue.reprioritize(id: 3, to: .normal)   // unchanged: no-op
        queue.reprioritize(id: 99, to: .high)    // unknown: no-op
        do { let result = queue.release(); #expect(result == "high") }
        do { let result = queue.release(); #expect(result == "raised") }
        do { let result = queue.release(); #expect(result == "normal") }
    }

    @Test func cancellingAWaiterRemovesItAndReturnsItOnce() {
        var queue = SlotQueueState<String>(width: 1)
        _ = queue.acquire(id: 0, priority: .normal, waiter: "running")
        _ = queue.acquire(id: 1, priority: .normal, waiter: "cancelled")
        _ = queue.acquire(id: 2, priority: .normal, waiter: "next")
        do { let result = queue.cancel(id: 1); #expect(result == "cancelled") }
        do { let result = queue.cancel(id: 1); #expect(result == nil) }
        do { let result = queue.cancel(id: 0); #expect(result == nil, "a running item is not waiting") }
        do { let result = queue.release(); #expect(result == "next") }
        #expect(queue.waitingCount == 0)
    }

    @Test func manyWaitersKeepTheirOrderAcrossCompaction() {
        var queue = SlotQueueState<Int>(width: 1)
        _ = queue.acquire(id: -1, priority: .normal, waiter: -1)
        for i in 0..<500 { _ = queue.acquire(id: i, priority: .normal, waiter: i) }
        var order: [Int] = []
        while let next = queue.release() { order.append(next) }
        #expect(order == Array(0..<500))
    }

    @Test func widthIsAtLeastOne() {
        var queue = SlotQueueState<String>(width: 0)
        #expect(queue.width == 1)
        do { let result = queue.acquire(id: 1, priority: .normal, waiter: "a"); #expect(result == .run) }
    }
}
