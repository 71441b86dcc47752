import Foundation
@testable import PictorCore
import PictorTestSupport
import Testing

@Suite(.timeLimit(.minutes(5)))
struct ImagePipelineStressTests {
    @Test(arguments: [1, 2, 3])
    func thousandsOfTasksWithRandomCancellationsAllEndAndTheCountersAddUp(seed: UInt64) async throws {
        // Given 20 URLs (one failing), several chains and thumbnails, and a held network
        let h = Harness()
        var urls = (0..<20).map { h.stub("s\($0).img", width: 64, height: 64) }
        let failing = URL(string: "https://example.test/fail.img")!
        h.network.stub(failing, error: .statusCode(503))
        urls.append(failing)
        let chains: [[any ImageProcessing]] = [[], [h.tag(1)], [h.tag(1), h.tag(2)], [h.tag(3, fails: true)]]
        var random = SplitMix64(seed: seed)
        h.network.gate.close()

        // When 3,000 tasks start, a third are cancelled at random moments and some change priority
        let count = 3_000
        var tasks: [ImageTask] = []
        for i in 0..<count {
            let url = urls[Int(random.next() % UInt64(urls.count))]
            var request = ImageRequest(url: url, processors: chains[Int(random.next() % UInt64(chains.count))])
            if random.next() % 4 == 0 { request.thumbnail = ThumbnailOptions(width: 16) }
            request.priority = RequestPriority(rawValue: Int(random.next() % 5))!
            if random.next() % 5 == 0 { request.options = .reloadIgnoringCachedData }
            let task = h.pipeline.imageTask(for: request)
            tasks.append(task)
            if i == count / 2 { h.network.gate.open() }
            switch random.next() % 6 {
            case 0, 1: tasks[Int(random.next() % UInt64(tasks.count))].cancel()
            case 2: tasks[Int(random.next() % UInt64(tasks.count))].setPriority(.veryHigh)
            default: break
            }
            if i % 250 == 0 { await Task.yield() }
        }

        // Then every task ends (none hangs)…
        var outcomes: [ImageTask.State: Int] = [:]
        for task in tasks {
            _ = try? await task.response
            outcomes[task.state, default: 0] += 1
        }
        #expect(outcomes[.running] == nil)
        #expect(outcomes.values.reduce(0, +) == count)

        // …the pipeline goes idle, and its counters add up.
        await until { h.pipeline.isIdle && h.pipeline.statistics.requests == count }
        await until {
            let s = h.pipeline.statistics
            return s.completed + s.failed + s.cancelled == count
        }
        let s = h.pipeline.statistics
        #expect(s.memoryHits + s.diskHits + s.networkLoads == s.completed)
        #expect(s.errors.values.reduce(0, +) == s.failed)
        #expect(s.completed >= outcomes[.completed] ?? 0)
        #expect(h.network.gate.waitingCount == 0)
        #expect(h.network.loadCount <= h.pipeline.statistics.fetchesStarted)
    }

    @Test func prefetchingWithRandomStopsAndLiveRequestsEndsWithCountsThatAddUp() async throws {
        let h = Harness()
        let urls = (0..<200).map { h.stub("p\($0).img", width: 32, height: 32) }
        let prefetcher = ImagePrefetcher(pipeline: h.pipeline, destination: .memoryCache)
        let diskPrefetcher = ImagePrefetcher(pipeline: h.pipeline, destination: .diskCache)
        var random = SplitMix64(seed: 42)
        var live: [ImageTask] = []

        for round in 0..<50 {
            let slice = (0..<10).map { _ in urls[Int(random.next() % UInt64(urls.count))] }
            prefetcher.startPrefetching(with: slice)
            diskPrefetcher.startPrefetching(with: slice.reversed())
            live.append(h.pipeline.imageTask(for: ImageRequest(url: slice[0], priority: .high)))
            switch random.next() % 4 {
            case 0: prefetcher.stopPrefetching(with: slice.prefix(3).map { ImageRequest(url: $0) })
            case 1: diskPrefetcher.stopPrefetching()
            default: break
            }
            if round % 10 == 0 { await Task.yield() }
        }
        await prefetcher.waitUntilIdle()
        await diskPrefetcher.waitUntilIdle()
        for task in live { _ = try await task.response }

        for stats in [prefetcher.statistics, diskPrefetcher.statistics] {
            #expect(stats.pending == 0 && stats.running == 0)
            #expect(stats.completed + stats.failed + stats.cancelled == stats.requested)
            #expect(stats.memoryHits + stats.diskHits + stats.networkLoads == stats.completed)
            #expect(stats.failed == 0)
        }
        await until { h.pipeline.isIdle }
        #expect(h.network.loadCount <= urls.count + h.pipeline.statistics.cancelled)
    }
}
