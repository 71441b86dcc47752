import Foundation
@testable import PictorCore
import PictorTestSupport
import Synchronization
import Testing

/// `ImagePipeline.Configuration.stageObserver`: told of each stage once, each time it runs.
@Suite(.timeLimit(.minutes(5)))
struct StageObserverTests {
    /// The stages reported, in order.
    final class StageLog: Sendable {
        private let stages = Mutex<[PipelineStage]>([])
        func append(_ stage: PipelineStage) { stages.withLock { $0.append(stage) } }
        var all: [PipelineStage] { stages.withLock { $0 } }
        func count(_ stage: PipelineStage) -> Int { all.filter { $0 == stage }.count }
    }

    @Test func anEncodedResultReportsEachStageOnceAndAWarmOneNone() async throws {
        let log = StageLog()
        let h = Harness { $0.stageObserver = { stage, _ in log.append(stage) } }
        let url = h.stub()
        let request = EncodedResultRequest(
            imageRequest: ImageRequest(url: url, processors: [h.tag(1)]), format: .png, quality: 80)

        _ = try await h.pipeline.encodedResult(for: request)
        #expect(log.count(.download) == 1)
        #expect(log.count(.decode) == 1)
        #expect(log.count(.process) == 1)
        #expect(log.count(.encode) == 1)
        // One wait for a slot before each decode, process and encode.
        #expect(log.count(.queue) == 3)

        let before = log.all.count
        let warm = try await h.pipeline.encodedResult(for: request)
        #expect(warm.layer == .storedResult)
        #expect(log.all.count == before, "\(log.all)")
    }

    @Test func sharedWorkIsReportedOnce() async throws {
        let log = StageLog()
        let h = Harness { $0.stageObserver = { stage, _ in log.append(stage) } }
        let url = h.stub()
        h.network.gate.close()
        let requests = Array(repeating: ImageRequest(url: url), count: 10)
        let loading = Task { await loadConcurrently(h.pipeline, requests) }
        await h.network.gate.waitUntil(waiting: 1)
        h.network.gate.open()
        let results = await loading.value
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        #expect(log.count(.download) == 1)
        #expect(log.count(.decode) == 1)
    }
}
