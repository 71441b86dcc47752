@testable import PictorCore
import Testing

/// The one priority queue's rules, with no threads and no I/O.
@Suite struct SlotQueueStateTests {
    @Test func runsUpToItsWidthThenQueues() {
        var queue = SlotQueueState<String>(width: 2)
        #expect(queue.acquire(id: 1, priority: .normal, waiter: "a") == .run)
        #expect(queue.acquire(id: 2, priority: .normal, waiter: "b") == .run)
        #expect(queue.acquire(id: 3, priority: .normal, waiter: "c") == .wait)
        #expect(queue.running == 2)
        #expect(queue.waitingCount == 1)
    }

    @Test func releaseHandsTheSlotToTheHighestPriorityThenTheOldest() {
        var queue = SlotQueueState<String>(width: 1)
        _ = queue.acquire(id: 0, priority: .normal, waiter: "running")
        _ = queue.acquire(id: 1, priority: .low, waiter: "low")
        _ = queue.acquire(id: 2, priority: .high, waiter: "high 1")
        _ = queue.acquire(id: 3, priority: .high, waiter: "high 2")
        #expect(queue.release() == "high 1")
        #expect(queue.release() == "high 2")
        #expect(queue.release() == "low")
        #expect(queue.running == 1)
        #expect(queue.release() == nil)
        #expect(queue.running == 0)
    }

    @Test func aNewcomerNeverOvertakesWaitersEvenWhenASlotLooksFree() {
        var queue = SlotQueueState<String>(width: 1)
        _ = queue.acquire(id: 0, priority: .normal, waiter: "running")
        _ = queue.acquire(id: 1, priority: .normal, waiter: "queued")
        // The slot is handed over on release; the count never drops to zero in between.
        #expect(queue.release() == "queued")
        #expect(queue.acquire(id: 2, priority: .veryHigh, waiter: "late") == .wait)
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
        #expect(queue.release() == "high")
        #expect(queue.release() == "raised")
        #expect(queue.release() == "normal")
    }

    @Test func cancellingAWaiterRemovesItAndReturnsItOnce() {
        var queue = SlotQueueState<String>(width: 1)
        _ = queue.acquire(id: 0, priority: .normal, waiter: "running")
        _ = queue.acquire(id: 1, priority: .normal, waiter: "cancelled")
        _ = queue.acquire(id: 2, priority: .normal, waiter: "next")
        #expect(queue.cancel(id: 1) == "cancelled")
        #expect(queue.cancel(id: 1) == nil)
        #expect(queue.cancel(id: 0) == nil, "a running item is not waiting")
        #expect(queue.release() == "next")
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
        #expect(queue.acquire(id: 1, priority: .normal, waiter: "a") == .run)
    }
}
