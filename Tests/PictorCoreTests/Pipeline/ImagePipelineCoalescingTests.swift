import Foundation
@testable import PictorCore
import PictorTestSupport
import Testing

@Suite(.timeLimit(.minutes(5)))
struct ImagePipelineCoalescingTests {
    @Test func concurrentRequestsForOneURLShareOneFetchAndOneDecode() async throws {
        // Given a held network
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()

        // When 100 callers ask for the same image
        let tasks = (0..<100).map { _ in h.pipeline.imageTask(for: ImageRequest(url: url)) }
        await h.waitForCallers(100)
        h.network.gate.open()
        for task in tasks { _ = try await task.response }

        // Then
        #expect(h.network.loadCount == 1)
        #expect(h.decoder.decodeCount == 1)
        #expect(h.pipeline.statistics.fetchesStarted == 1)
        #expect(h.pipeline.statistics.sharedRequests >= 99)
    }

    @Test func differentThumbnailsShareTheFetchButDecodeOnceEach() async throws {
        let h = Harness()
        let url = h.stub(width: 400, height: 400)
        h.network.gate.close()

        let sizes = [100, 200, 100, 200, 100]
        let tasks = sizes.map { h.pipeline.imageTask(for: ImageRequest(url: url, thumbnail: ThumbnailOptions(width: $0))) }
        await h.waitForCallers(5)
        h.network.gate.open()
        let widths = try await tasks.asyncMap { try await $0.image.width }

        #expect(widths == sizes)
        #expect(h.network.loadCount == 1)
        #expect(h.decoder.decodeCount == 2)
    }

    @Test func differentChainsShareTheFetchAndTheDecodeAndACommonPrefix() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()

        let chains: [[any ImageProcessing]] = [[h.tag(1), h.tag(2)], [h.tag(1), h.tag(3)], [h.tag(1), h.tag(2)], []]
        let tasks = chains.map { h.pipeline.imageTask(for: ImageRequest(url: url, processors: $0)) }
        await h.waitForCallers(4)
        h.network.gate.open()
        let markers = try await tasks.asyncMap { try await $0.image.pixels.first }

        #expect(markers == [2, 3, 2, 0])
        #expect(h.network.loadCount == 1)
        #expect(h.decoder.decodeCount == 1)
        #expect(h.processors.count("tag(1)") == 1, "the shared prefix runs once")
        #expect(h.processors.count("tag(2)") == 1)
        #expect(h.processors.count("tag(3)") == 1)
    }

    @Test func dataAndImageRequestsShareTheFetch() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()

        let image = h.pipeline.imageTask(for: ImageRequest(url: url))
        async let data = h.pipeline.data(for: ImageRequest(url: url))
        await h.waitForCallers(1)
        await until { h.pipeline.fetches.subscriberCount == 2 }
        h.network.gate.open()
        _ = try await image.response
        _ = try await data

        #expect(h.network.loadCount == 1)
    }

    @Test func ofTwoConcurrentIdenticalRequestsExactlyOneSaysItJoinedTheOther() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()

        let tasks = (0..<2).map { _ in h.pipeline.imageTask(for: ImageRequest(url: url)) }
        await h.waitForCallers(2)
        h.network.gate.open()
        let shared = try await tasks.asyncMap { try await $0.response.metrics.wasShared }

        #expect(shared.filter { $0 }.count == 1, "\(shared)")
        #expect(h.network.loadCount == 1)
    }

    @Test func ofTwoConcurrentIdenticalDataRequestsExactlyOneSaysItJoinedTheOther() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()

        async let first = h.pipeline.data(for: ImageRequest(url: url))
        async let second = h.pipeline.data(for: ImageRequest(url: url))
        await until { h.pipeline.fetches.subscriberCount == 2 }
        h.network.gate.open()
        let shared = try await [first.metrics.wasShared, second.metrics.wasShared]

        #expect(shared.filter { $0 }.count == 1, "\(shared)")
        #expect(h.network.loadCount == 1)
    }

    @Test func workIsNotSharedAfterItFinished() async throws {
        let h = Harness(memoryCache: false)
        let url = h.stub()

        _ = try await h.pipeline.image(for: ImageRequest(url: url))
        let second = try await h.pipeline.image(for: ImageRequest(url: url))

        #expect(second.cacheLayer == .disk)
        #expect(h.decoder.decodeCount == 2)
    }

    @Test func progressReachesEveryCallerOfSharedWork() async throws {
        let h = Harness()
        let url = URL(string: "https://example.test/p.img")!
        h.network.stub(url, data: TestImageCodec.encode(width: 8, height: 8), progressSteps: 4)
        h.network.gate.close()

        let first = h.pipeline.imageTask(for: ImageRequest(url: url))
        let second = h.pipeline.imageTask(for: ImageRequest(url: url, processors: [h.tag(1)]))
        let firstProgress = first.progress, secondProgress = second.progress
        await h.waitForCallers(2)
        h.network.gate.open()

        var a: [TransferProgress] = [], b: [TransferProgress] = []
        for await p in firstProgress { a.append(p) }
        for await p in secondProgress { b.append(p) }
        #expect(a.last?.fraction == 1)
        #expect(b.last?.fraction == 1)
        #expect(a.count == 4 && b.count == 4)
    }
}

extension Array {
    /// Maps the elements in order with an async transform.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}

/// Callers that share one fetch but differ in whether they write to disk.
@Suite(.timeLimit(.minutes(5)))
struct ImagePipelineSharedFetchWriteTests {
    /// A first caller that does not write, a second that does, one held download.
    func run(headers: [String: String]) async throws -> Harness {
        let h = Harness { $0.httpCachePolicy = .http }
        let url = URL(string: "https://example.test/shared.img")!
        h.network.stub(url, MockDataLoader.Stub(headers: headers, body: TestImageCodec.encode(width: 8, height: 8)))
        h.network.gate.close()
        let first = h.pipeline.imageTask(for: ImageRequest(url: url, options: .disableDiskCacheWrites))
        await h.network.gate.waitUntil(waiting: 1)
        let second = h.pipeline.imageTask(for: ImageRequest(url: url))
        await until { h.pipeline.fetches.subscriberCount == 2 }
        h.network.gate.open()
        _ = try await (first.response, second.response)
        #expect(h.network.loadCount == 1)
        return h
    }

    @Test func aJoinerThatWantsTheBytesOnDiskWritesThem() async throws {
        let h = try await run(headers: ["Cache-Control": "max-age=60"])
        #expect(h.disk.keys == ["https://example.test/shared.img"])
    }

    @Test func aJoinerNeverWritesWhatTheResponseForbids() async throws {
        // The joiner once stored a `no-store` response that the fetch itself had refused.
        let h = try await run(headers: ["Cache-Control": "no-store"])
        #expect(h.disk.keys.isEmpty)
    }
}
