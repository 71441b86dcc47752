import Foundation
@testable import PictorCore
import PictorTestSupport
import Testing

@Suite(.timeLimit(.minutes(5)))
struct ImagePipelineCancellationTests {
    @Test func cancellingOneOfTwoCallersLeavesTheOtherAndTheSharedFetchRunning() async throws {
        // Given two callers waiting on one held download
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()
        let first = h.pipeline.imageTask(for: ImageRequest(url: url))
        let second = h.pipeline.imageTask(for: ImageRequest(url: url))
        await h.waitForCallers(2)
        await h.network.gate.waitUntil(waiting: 1)

        // When one cancels
        first.cancel()

        // Then it ends at once, and the other still gets the image from the same download
        await #expect(throws: ImagePipeline.Error.self) { try await first.response }
        #expect(first.state == .cancelled)
        #expect(h.network.gate.waitingCount == 1, "the download was not cancelled")
        h.network.gate.open()
        let response = try await second.response
        #expect(response.cacheLayer == .network)
        #expect(h.network.loadCount == 1)
    }

    @Test func cancellingTheLastCallerCancelsTheWorkAtEveryStage() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()
        let task = h.pipeline.imageTask(for: ImageRequest(url: url, processors: [h.tag(1)]))
        await h.network.gate.waitUntil(waiting: 1)

        task.cancel()

        await until { h.network.gate.waitingCount == 0 }
        await until { h.pipeline.isIdle }
        #expect(h.decoder.decodeCount == 0)
        #expect(h.processors.total == 0)
        #expect(h.memory.count == 0)
        await until { h.pipeline.statistics.cancelled == 1 }
        #expect(h.pipeline.statistics.requests == 1)
    }

    @Test func aRequestAfterTheLastCallerCancelledStartsFreshWork() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()
        let cancelled = h.pipeline.imageTask(for: ImageRequest(url: url))
        await h.network.gate.waitUntil(waiting: 1)
        cancelled.cancel()
        await until { h.network.gate.waitingCount == 0 }

        h.network.gate.open()
        let response = try await h.pipeline.image(for: ImageRequest(url: url))

        #expect(response.cacheLayer == .network)
        #expect(h.network.loadCount == 2)
    }

    @Test func cancellingTheCallingSwiftTaskCancelsTheRequest() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()
        let caller = Task { try await h.pipeline.image(for: ImageRequest(url: url)) }
        await h.network.gate.waitUntil(waiting: 1)

        caller.cancel()

        let result = await caller.result
        guard case .failure(let error) = result, let error = error as? ImagePipeline.Error, case .cancelled = error else {
            Issue.record("expected ImagePipeline.Error.cancelled, got \(result)")
            return
        }
        await until { h.pipeline.isIdle }
    }

    @Test func cancellingACompletedTaskChangesNothing() async throws {
        let h = Harness()
        let url = h.stub()
        let task = h.pipeline.imageTask(for: ImageRequest(url: url))
        _ = try await task.response

        task.cancel()

        #expect(task.state == .completed)
        _ = try await task.response
    }

    @Test func anAlreadyCancelledCallerNeverStartsWork() async throws {
        let h = Harness()
        let url = h.stub()
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await h.pipeline.image(for: ImageRequest(url: url))
        }
        await #expect(throws: ImagePipeline.Error.self) { try await caller.value }
        await until { h.pipeline.isIdle }
        #expect(h.decoder.decodeCount == 0)
    }

    @Test func theCallbackAPIDeliversCancellationOnItsQueue() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()
        let queue = DispatchQueue(label: "test.callbacks")
        try await confirmation { delivered in
            let result: Result<ImageResponse, ImagePipeline.Error> = await withCheckedContinuation { continuation in
                let task = h.pipeline.loadImage(with: ImageRequest(url: url), queue: queue) { result in
                    dispatchPrecondition(condition: .onQueue(queue))
                    continuation.resume(returning: result)
                }
                task.cancel()
            }
            if case .failure(.cancelled) = result { delivered() }
            _ = try #require(Optional(result))
        }
    }
}
