import Dispatch
import Foundation
@testable import PictorCore
import PictorTestSupport
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(5)))
struct ImagePipelinePriorityTests {
    @Test func sharedWorkRunsAtTheHighestPriorityOfItsCallers() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()
        let low = h.pipeline.imageTask(for: ImageRequest(url: url, priority: .low))
        await h.network.gate.waitUntil(waiting: 1)
        #expect(h.network.currentPriority(for: url) == .low)

        // A high-priority caller joins: the download is raised.
        let high = h.pipeline.imageTask(for: ImageRequest(url: url, processors: [h.tag(1)], priority: .high))
        await until { h.network.currentPriority(for: url) == .high }

        // It leaves: the download falls back.
        high.cancel()
        await until { h.network.currentPriority(for: url) == .low }

        h.network.gate.open()
        _ = try await low.response
    }

    @Test func changingATasksPriorityReachesTheDownload() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()
        let task = h.pipeline.imageTask(for: ImageRequest(url: url, priority: .normal))
        let events = task.events
        await h.network.gate.waitUntil(waiting: 1)

        task.setPriority(.veryHigh)

        await until { h.network.currentPriority(for: url) == .veryHigh }
        #expect(task.priority == .veryHigh)
        h.network.gate.open()
        var sawChange = false, sawFinish = false
        for await event in events {
            switch event {
            case .priorityChanged(let p): sawChange = p == .veryHigh
            case .finished(let result): sawFinish = (try? result.get()) != nil
            case .progress, .updated: break
            }
        }
        #expect(sawChange && sawFinish)
    }

    @Test func theWorkQueueStartsTheHighestPriorityWaiterFirst() async throws {
        // Given a one-slot queue whose slot is taken
        let queue = WorkQueue(width: 1, label: "test.queue")
        let order = OrderLog()
        let slot = try await queue.acquire(priority: PriorityHandle(.normal))

        // When a low and then a high item wait, and the low one is raised to very high
        let lowHandle = PriorityHandle(.low)
        let low = Task { try await queue.execute(priority: lowHandle) { order.append("low") } }
        await until { queue.waitingCount == 1 }
        let high = Task { try await queue.execute(priority: PriorityHandle(.high)) { order.append("high") } }
        await until { queue.waitingCount == 2 }
        lowHandle.update(.veryHigh)
        queue.release(slot)
        _ = try await (low.value, high.value)

        // Then the raised one ran first
        #expect(order.items == ["low", "high"])
    }

    @Test func aCancelledWaiterLeavesTheWorkQueue() async throws {
        let queue = WorkQueue(width: 1, label: "test.queue")
        let slot = try await queue.acquire(priority: PriorityHandle(.normal))
        let waiting = Task { try await queue.execute(priority: PriorityHandle(.normal)) { 1 } }
        await until { queue.waitingCount == 1 }

        waiting.cancel()

        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(queue.waitingCount == 0)
        queue.release(slot)
        #expect(!queue.isBusy)
    }

    @Test func workQueueItemsRunOffTheCooperativePoolsThreads() async throws {
        // On Linux the cooperative pool runs on Dispatch's non-overcommit root queue, which
        // has one thread per core; a concurrent Dispatch queue's items ran on those same
        // threads, so a processing queue as wide as the machine, busy with a long resize or
        // encode, starved every task (a request's deadline fired only when the encode ended,
        // and a pool task waited 6.9 s for a full queue of spinning items). Dispatch names its
        // root threads by queue, so the item's thread name tells which pool it ran on.
        let poolThread = Self.threadName()
        let queue = WorkQueue(width: 1, label: "test.queue")
        let itemThread = try await queue.execute(priority: PriorityHandle(.normal)) { Self.threadName() }.value
        #expect(itemThread != poolThread)
    }

    /// The calling thread's name, as the kernel keeps it (at most 15 bytes).
    private static func threadName() -> String {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
    }
}

/// A thread-safe list of strings, in append order.
final class OrderLog: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ item: String) { storage.withLock { $0.append(item) } }
    var items: [String] { storage.withLock { $0 } }
}
