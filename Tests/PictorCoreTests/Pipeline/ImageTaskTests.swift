import Dispatch
import Foundation
@testable import PictorCore
import PictorTestSupport
import Testing

@Suite(.timeLimit(.minutes(5)))
struct ImageTaskTests {
    @Test func eventsArriveInOrderAndEndWithFinished() async throws {
        let h = Harness()
        let url = URL(string: "https://example.test/e.img")!
        h.network.stub(url, data: TestImageCodec.encode(width: 8, height: 8), progressSteps: 3)
        h.network.gate.close()
        let task = h.pipeline.imageTask(for: ImageRequest(url: url))
        let events = task.events
        await h.network.gate.waitUntil(waiting: 1)
        h.network.gate.open()

        var names: [String] = []
        for await event in events {
            switch event {
            case .progress: names.append("progress")
            case .priorityChanged: names.append("priority")
            case .finished(let result): names.append((try? result.get()) == nil ? "failed" : "finished")
            case .updated: names.append("updated")
            }
        }

        #expect(names == ["progress", "progress", "progress", "finished"])
        #expect(task.state == .completed)
    }

    @Test func streamsMadeAfterTheTaskFinishedEndAtOnce() async throws {
        let h = Harness()
        let task = h.pipeline.imageTask(for: ImageRequest(url: h.stub()))
        _ = try await task.response

        var events: [ImageTask.Event] = []
        for await event in task.events { events.append(event) }
        var progress: [TransferProgress] = []
        for await p in task.progress { progress.append(p) }

        #expect(events.count == 1)
        #expect(progress.isEmpty)
    }

    @Test func theCallbackAPIDeliversProgressAndTheResultOnTheChosenQueue() async throws {
        let h = Harness()
        let url = URL(string: "https://example.test/cb.img")!
        h.network.stub(url, data: TestImageCodec.encode(width: 8, height: 8), progressSteps: 2)
        let queue = DispatchQueue(label: "test.delivery")
        let progressCount = OrderLog()

        let response = try await withCheckedThrowingContinuation { continuation in
            h.pipeline.loadImage(
                with: ImageRequest(url: url), queue: queue,
                progress: { _ in
                    dispatchPrecondition(condition: .onQueue(queue))
                    progressCount.append("p")
                },
                completion: { result in
                    dispatchPrecondition(condition: .onQueue(queue))
                    continuation.resume(with: result)
                })
        }

        #expect(response.image.width == 8)
        #expect(progressCount.items.count == 2, "progress is queued before the completion on the serial queue")
    }

    @Test func cancellingTheTaskAwaitingTheResponseCancelsTheImageTask() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()
        let task = h.pipeline.imageTask(for: ImageRequest(url: url))
        let waiter = Task { try await task.response }
        await h.network.gate.waitUntil(waiting: 1)

        waiter.cancel()

        await #expect(throws: ImagePipeline.Error.self) { try await waiter.value }
        #expect(task.state == .cancelled)
        await until { h.pipeline.isIdle }
    }

    @Test func metricsDescribeTheWork() async throws {
        let h = Harness()
        let url = h.stub(width: 100, height: 100)

        let response = try await h.pipeline.image(for: ImageRequest(url: url, processors: [h.tag(1)]))
        let hit = try await h.pipeline.image(for: ImageRequest(url: url, processors: [h.tag(1)]))

        let m = response.metrics
        #expect(m.totalDuration >= m.loadDuration)
        #expect(m.loadDuration >= 0 && m.decodeDuration >= 0 && m.processDuration >= 0 && m.queueWaitDuration >= 0)
        #expect(m.originalByteCount == TestImageCodec.encode(width: 100, height: 100).count)
        #expect(!m.wasShared)
        #expect(hit.metrics.originalByteCount == nil)
        let stats = h.pipeline.statistics
        #expect(stats.requests == 2 && stats.networkLoads == 1 && stats.memoryHits == 1)
        #expect(stats.fetchesStarted == 1 && stats.decodesStarted == 1 && stats.processingsStarted == 1)
    }
}
