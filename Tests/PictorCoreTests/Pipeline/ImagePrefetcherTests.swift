import Foundation
@testable import PictorCore
import PictorTestSupport
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(5)))
struct ImagePrefetcherTests {
    @Test func prefetchingToMemoryFillsTheMemoryCacheAndCountsLayers() async throws {
        let h = Harness()
        let urls = (0..<10).map { h.stub("i\($0).img") }
        let prefetcher = ImagePrefetcher(pipeline: h.pipeline)

        prefetcher.startPrefetching(with: urls)
        await prefetcher.waitUntilIdle()
        prefetcher.startPrefetching(with: urls)
        await prefetcher.waitUntilIdle()

        let stats = prefetcher.statistics
        #expect(stats.requested == 20)
        #expect(stats.networkLoads == 10)
        #expect(stats.memoryHits == 10)
        #expect(stats.completed == 20 && stats.failed == 0 && stats.pending == 0 && stats.running == 0)
        #expect(h.memory.count == 10)
    }

    @Test func prefetchingToDiskDecodesNothing() async throws {
        let h = Harness()
        let urls = (0..<5).map { h.stub("d\($0).img") }
        let prefetcher = ImagePrefetcher(pipeline: h.pipeline, destination: .diskCache)

        prefetcher.startPrefetching(with: urls)
        await prefetcher.waitUntilIdle()
        prefetcher.startPrefetching(with: urls)
        await prefetcher.waitUntilIdle()

        #expect(h.decoder.decodeCount == 0)
        #expect(h.disk.keys.count == 5)
        #expect(prefetcher.statistics.networkLoads == 5)
        #expect(prefetcher.statistics.diskHits == 5)
        #expect(h.network.loadCount == 5)
    }

    /// A disk cache that counts whole-entry reads, to tell them from metadata reads.
    final class ReadCountingCache: DataCaching, Sendable {
        let inner = TestDataCache()
        let entryReads = Mutex(0)
        func entry(for key: String) -> DataCacheEntry? {
            entryReads.withLock { $0 += 1 }
            return inner.entry(for: key)
        }
        func metadata(for key: String) -> DataCacheMetadata? { inner.entry(for: key)?.metadata }
        func contains(_ key: String) -> Bool { inner.contains(key) }
        func store(_ data: Data, for key: String, metadata: DataCacheMetadata) { inner.store(data, for: key, metadata: metadata) }
        func updateMetadata(_ metadata: DataCacheMetadata, for key: String) { inner.updateMetadata(metadata, for: key) }
        func removeData(for key: String) { inner.removeData(for: key) }
        func removeAll() { inner.removeAll() }
    }

    @Test func prefetchingToDiskRevalidatesAStaleEntryAndReadsNoBytesOfAFreshOne() async throws {
        let cache = ReadCountingCache()
        let h = Harness { $0.dataCache = cache; $0.httpCachePolicy = .http }
        let fresh = h.stub("fresh.img"), stale = h.stub("stale.img"), missing = h.stub("missing.img")
        h.network.setRevalidating(stale)
        let body = TestImageCodec.encode(width: 8, height: 8)
        cache.store(body, for: fresh.absoluteString, metadata: DataCacheMetadata(expiresAt: Date().addingTimeInterval(3600)))
        cache.store(body, for: stale.absoluteString, metadata: DataCacheMetadata(etag: "\"v1\"", expiresAt: Date().addingTimeInterval(-60)))
        let outcomes = Mutex<[URL: ImagePrefetcher.Outcome]>([:])
        let prefetcher = ImagePrefetcher(pipeline: h.pipeline, destination: .diskCache) { request, outcome in
            outcomes.withLock { $0[request.url!] = outcome }
        }

        prefetcher.startPrefetching(with: [fresh, stale, missing])
        await prefetcher.waitUntilIdle()

        #expect(h.network.loadCount(for: fresh) == 0)
        #expect(h.network.loadCount(for: stale) == 1, "a stale entry is asked about, not counted as a hit")
        #expect(h.network.loads.first { $0.request.url == stale }?.isConditional == true, "with its validators")
        #expect(h.network.loadCount(for: missing) == 1)
        #expect(cache.metadata(for: stale.absoluteString)?.expiresAt ?? .distantPast > Date(), "the 304 refreshed it")
        #expect(cache.contains(missing.absoluteString))
        let read = outcomes.withLock { $0 }
        #expect(read[fresh].flatMap { try? $0.get() } == .disk)
        #expect(read[missing].flatMap { try? $0.get() } == .network)
        // The stale entry was read once, to revalidate it; the fresh one not at all.
        #expect(cache.entryReads.withLock { $0 } == 2, "the fresh entry's bytes are not read")
        #expect(h.decoder.decodeCount == 0)
    }

    @Test func everyPrefetchGoesToThePipelineAtOnceAtLowPriority() async throws {
        let h = Harness()
        let urls = (0..<6).map { h.stub("c\($0).img") }
        h.network.gate.close()
        let prefetcher = ImagePrefetcher(pipeline: h.pipeline)

        prefetcher.startPrefetching(with: urls)
        // No queue of the prefetcher's own: the loader's queue (here a fake that takes
        // everything) is what orders and bounds them.
        await h.network.gate.waitUntil(waiting: 6)

        #expect(prefetcher.statistics.running == 6)
        #expect(prefetcher.statistics.pending == 0)
        #expect(h.network.loads.allSatisfy { $0.priority == .low })
        h.network.gate.open()
        await prefetcher.waitUntilIdle()
        #expect(prefetcher.statistics.completed == 6)
    }

    /// Through a real `DataLoader`: at most its background limit of prefetches download at
    /// once, and a visible request takes a free slot ahead of every waiting prefetch.
    @Test func theLoadersBackgroundLimitBoundsPrefetchesAndAVisibleRequestPassesThem() async throws {
        let transport = MockTransport()
        transport.gate.close()
        let loader = DataLoader(transport: transport) {
            $0.maximumConcurrentRequests = 3
            $0.maximumConcurrentBackgroundRequests = 2
        }
        // A real PNG: the loader checks that a body is an image.
        let body = try Data(contentsOf: LoadingFixtures.corpus.appendingPathComponent("pngsuite/basn2c08.png"))
        let urls = (0..<6).map { URL(string: "https://example.test/b\($0).img")! }
        let visible = URL(string: "https://example.test/visible.img")!
        for url in urls + [visible] { transport.answer(url, .init(body: body)) }
        let pipeline = ImagePipeline(configuration: .init(dataLoader: loader, decoder: CountingImageDecoder()))
        let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .diskCache)

        prefetcher.startPrefetching(with: urls)
        await transport.gate.waitUntil(waiting: 2)
        // The other four reach the loader's queue through the pipeline's own tasks, which a
        // loaded machine may not have run yet: wait (up to 10 s, never a timing assertion).
        for _ in 0..<1_000 where loader.waitingCount < 4 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(loader.runningCount == 2)
        #expect(loader.waitingCount == 4, "the other prefetches wait in the loader's queue")

        let live = Task { try await pipeline.data(for: ImageRequest(url: visible)) }
        await transport.gate.waitUntil(waiting: 3)
        #expect(transport.requests.last?.url == visible, "the visible request took the free slot")
        transport.gate.open()
        _ = try await live.value
        await prefetcher.waitUntilIdle()
        #expect(prefetcher.statistics.completed == 6)
    }

    @Test func aLiveRequestSharesThePrefetchAndRaisesItsPriority() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()
        let prefetcher = ImagePrefetcher(pipeline: h.pipeline)
        prefetcher.startPrefetching(with: [url])
        await h.network.gate.waitUntil(waiting: 1)

        let live = h.pipeline.imageTask(for: ImageRequest(url: url, priority: .high))
        await until { h.network.currentPriority(for: url) == .high }
        h.network.gate.open()
        _ = try await live.response
        await prefetcher.waitUntilIdle()

        #expect(h.network.loadCount == 1)
        #expect(h.decoder.decodeCount == 1)
    }

    @Test func stoppingCancelsRunningAndDropsHeldPrefetches() async throws {
        let h = Harness()
        let urls = (0..<5).map { h.stub("s\($0).img") }
        h.network.gate.close()
        let prefetcher = ImagePrefetcher(pipeline: h.pipeline)
        prefetcher.startPrefetching(with: Array(urls[0..<3]))
        await h.network.gate.waitUntil(waiting: 3)
        prefetcher.pause()
        prefetcher.startPrefetching(with: Array(urls[3...]))
        #expect(prefetcher.statistics.pending == 2)

        prefetcher.stopPrefetching()
        await prefetcher.waitUntilIdle()

        #expect(prefetcher.statistics.cancelled == 5)
        #expect(prefetcher.statistics.completed == 0)
        await until { h.network.gate.waitingCount == 0 }
        await until { h.pipeline.isIdle }
    }

    @Test func stoppingOneRequestLeavesTheOthers() async throws {
        let h = Harness()
        let urls = (0..<3).map { h.stub("o\($0).img") }
        h.network.gate.close()
        let prefetcher = ImagePrefetcher(pipeline: h.pipeline)
        prefetcher.startPrefetching(with: urls)
        await h.network.gate.waitUntil(waiting: 3)

        prefetcher.stopPrefetching(with: [ImageRequest(url: urls[2])])
        await until { h.network.gate.waitingCount == 2 }
        h.network.gate.open()
        await prefetcher.waitUntilIdle()

        #expect(prefetcher.statistics.completed == 2)
        #expect(prefetcher.statistics.cancelled == 1)
    }

    /// A list view cancels the prefetches of cells that scroll away and asks again when they
    /// come back: a request stopped and given again at once must run again, even while its
    /// cancelled task is still ending.
    @Test func aStoppedRequestGivenAgainAtOnceRunsAgain() async throws {
        let h = Harness()
        let urls = (0..<3).map { h.stub("r\($0).img") }
        h.network.gate.close()
        let prefetcher = ImagePrefetcher(pipeline: h.pipeline)
        prefetcher.startPrefetching(with: urls)
        await h.network.gate.waitUntil(waiting: 3)

        prefetcher.stopPrefetching(with: urls.map { ImageRequest(url: $0) })
        prefetcher.startPrefetching(with: urls)
        h.network.gate.open()
        await prefetcher.waitUntilIdle()

        let stats = prefetcher.statistics
        #expect(stats.requested == 6)
        #expect(stats.cancelled == 3)
        #expect(stats.completed == 3)
        #expect(stats.running == 0)
        for url in urls { #expect(h.pipeline.cachedImage(for: ImageRequest(url: url)) != nil) }
    }

    @Test func pausingHoldsQueuedPrefetchesUntilResumed() async throws {
        let h = Harness()
        let urls = (0..<3).map { h.stub("p\($0).img") }
        let prefetcher = ImagePrefetcher(pipeline: h.pipeline)
        prefetcher.pause()

        prefetcher.startPrefetching(with: urls)
        await prefetcher.waitUntilIdle()
        #expect(prefetcher.statistics.pending == 3)
        #expect(h.network.loadCount == 0)

        prefetcher.resume()
        await prefetcher.waitUntilIdle()
        #expect(prefetcher.statistics.completed == 3)
    }

    /// `waitUntilIdle()` returns only once every outcome was delivered: a prefetch stopped
    /// counting as running before its completion handler ran, so another prefetch ending
    /// meanwhile woke the waiter with that outcome still undelivered (seen under load).
    @Test func waitingUntilIdleReturnsOnlyAfterEveryOutcomeWasDelivered() async throws {
        let h = Harness()
        let slow = h.stub("slow.img")
        let slowGate = h.network.gate(for: slow)
        let gone = URL(string: "https://example.test/gone.img")!
        let slowDelivered = DispatchSemaphore(value: 0)
        let outcomes = OrderLog()
        let prefetcher = ImagePrefetcher(pipeline: h.pipeline) { request, _ in
            if request.url == gone {
                // This handler is still running when the other prefetch ends.
                slowGate.open()
                _ = slowDelivered.wait(timeout: .now() + 5)
                usleep(200_000)
                outcomes.append("gone")
            } else {
                outcomes.append("slow")
                slowDelivered.signal()
            }
        }
        prefetcher.startPrefetching(with: [slow, gone])
        await prefetcher.waitUntilIdle()
        #expect(Set(outcomes.items) == ["slow", "gone"])
        #expect(prefetcher.statistics.completed == 1 && prefetcher.statistics.failed == 1)
    }

    @Test func duplicatesAreQueuedOnceAndFailuresAreReported() async throws {
        let h = Harness()
        let good = h.stub("g.img")
        let bad = URL(string: "https://example.test/404.img")!
        let outcomes = OrderLog()
        let prefetcher = ImagePrefetcher(pipeline: h.pipeline) { request, outcome in
            if case .failure(let error) = outcome { outcomes.append("\(request.url!.lastPathComponent): \(error)") }
        }

        prefetcher.startPrefetching(with: [good, good, bad, bad])
        await prefetcher.waitUntilIdle()

        #expect(prefetcher.statistics.requested == 2)
        #expect(prefetcher.statistics.failed == 1)
        #expect(outcomes.items == ["404.img: loading failed: HTTP status 404"])
    }
}
