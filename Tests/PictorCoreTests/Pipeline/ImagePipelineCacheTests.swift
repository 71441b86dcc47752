import Foundation
@testable import PictorCore
import PictorTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(5)))
struct ImagePipelineCacheTests {
    @Test func reloadIgnoringCachedDataSkipsBothCachesButStoresTheResult() async throws {
        let h = Harness()
        let url = h.stub()
        _ = try await h.pipeline.image(for: ImageRequest(url: url))

        let response = try await h.pipeline.image(for: ImageRequest(url: url, options: .reloadIgnoringCachedData))

        #expect(response.cacheLayer == .network)
        #expect(h.network.loadCount == 2)
        #expect(h.memory.storedKeys.count == 2)
    }

    @Test func cacheOnlyServesFromDiskAndNeverTheNetwork() async throws {
        let h = Harness()
        let url = h.stub()
        _ = try await h.pipeline.image(for: ImageRequest(url: url))
        h.memory.removeAll()

        let response = try await h.pipeline.image(for: ImageRequest(url: url, options: .cacheOnly))

        #expect(response.cacheLayer == .disk)
        #expect(h.network.loadCount == 1)
    }

    @Test func cacheOnlyFailsWithNotCachedOnAMiss() async throws {
        let h = Harness()
        let url = h.stub()

        do {
            _ = try await h.pipeline.image(for: ImageRequest(url: url, options: .returnCacheDataDontLoad))
            Issue.record("expected a failure")
        } catch {
            #expect(error.kind == .loading)
            #expect(error.dataLoadingError == .notCached)
        }
        #expect(h.network.loadCount == 0)
        #expect(h.pipeline.statistics.errors[.loading] == 1)
    }

    @Test func memoryOnlyWritesNothingToDisk() async throws {
        let h = Harness()
        let url = h.stub()

        _ = try await h.pipeline.image(for: ImageRequest(url: url, options: .memoryOnly))

        #expect(h.disk.keys.isEmpty)
        #expect(h.memory.count == 1)
    }

    @Test func disablingMemoryReadsAndWritesBypassesTheMemoryCache() async throws {
        let h = Harness()
        let url = h.stub()
        _ = try await h.pipeline.image(for: ImageRequest(url: url))

        let read = try await h.pipeline.image(for: ImageRequest(url: url, options: .disableMemoryCacheReads))
        h.memory.removeAll()
        _ = try await h.pipeline.image(for: ImageRequest(url: url, options: .disableMemoryCacheWrites))

        #expect(read.cacheLayer == .disk)
        #expect(h.memory.count == 0)
        #expect(h.pipeline.cachedImage(for: ImageRequest(url: url, options: .disableMemoryCacheReads)) == nil)
    }

    @Test func disablingDiskReadsGoesToTheNetwork() async throws {
        let h = Harness(memoryCache: false)
        let url = h.stub()
        _ = try await h.pipeline.image(for: ImageRequest(url: url))

        let response = try await h.pipeline.image(for: ImageRequest(url: url, options: .disableDiskCacheReads))

        #expect(response.cacheLayer == .network)
    }

    @Test(arguments: [ImagePipeline.DiskCachePolicy.original, .processed, .both, .none])
    func theDiskPolicyDecidesWhatIsStored(policy: ImagePipeline.DiskCachePolicy) async throws {
        let h = Harness(policy: policy)
        let url = h.stub()
        let request = ImageRequest(url: url, processors: [h.tag(5)])

        _ = try await h.pipeline.image(for: request)

        let variantKey = h.pipeline.variantCacheKey(for: request)
        #expect(h.disk.contains(url.absoluteString) == (policy == .original || policy == .both))
        #expect(h.disk.contains(variantKey) == (policy == .processed || policy == .both))
    }

    @Test func theProcessedPolicyStillStoresOriginalsOfPlainRequests() async throws {
        let h = Harness(policy: .processed)
        let url = h.stub()

        _ = try await h.pipeline.image(for: ImageRequest(url: url))

        #expect(h.disk.keys == [url.absoluteString])
    }

    @Test func aStoredProcessedVariantIsServedWithoutFetchingOrProcessing() async throws {
        let h = Harness(policy: .processed)
        let url = h.stub()
        let request = ImageRequest(url: url, processors: [h.tag(5)])
        _ = try await h.pipeline.image(for: request)
        h.memory.removeAll()

        let response = try await h.pipeline.image(for: request)

        #expect(response.cacheLayer == .disk)
        #expect(response.image.pixels.first == 5)
        #expect(h.network.loadCount == 1)
        #expect(h.processors.count("tag(5)") == 1)
    }

    @Test func aFailedVariantEncodeIsCountedButTheRequestSucceeds() async throws {
        let h = Harness(policy: .processed)
        h.encoder.setFailing(true)
        let url = h.stub()

        let response = try await h.pipeline.image(for: ImageRequest(url: url, processors: [h.tag(1)]))

        #expect(response.image.pixels.first == 1)
        #expect(h.pipeline.statistics.cacheWriteFailures == 1)
        #expect(h.disk.keys.isEmpty)
    }

    @Test func aCachedOriginalThatFailsToDecodeIsRemovedAndLoadedAgain() async throws {
        // Given a corrupt original on disk
        let h = Harness()
        let url = h.stub()
        h.disk.store(Data("PTST garbage".utf8), for: url.absoluteString)

        // When
        let response = try await h.pipeline.image(for: ImageRequest(url: url))

        // Then the entry was removed, the image loaded from the network and stored again
        #expect(response.cacheLayer == .network)
        #expect(response.discardedCachedEntry)
        #expect(h.disk.removedKeys == [url.absoluteString])
        #expect(h.disk.entry(for: url.absoluteString)?.data == TestImageCodec.encode(width: 64, height: 48))
        #expect(h.pipeline.statistics.discardedCacheEntries == 1)
        #expect(h.network.loadCount == 1)
    }

    @Test func aCorruptCachedOriginalWithCacheOnlyFailsAndIsRemoved() async throws {
        let h = Harness()
        let url = h.stub()
        h.disk.store(Data("PTST".utf8), for: url.absoluteString)

        await #expect(throws: ImagePipeline.Error.self) {
            try await h.pipeline.image(for: ImageRequest(url: url, options: .cacheOnly))
        }
        #expect(!h.disk.contains(url.absoluteString))
        #expect(h.network.loadCount == 0)
    }

    @Test func aDownloadThatFailsToDecodeIsAnErrorAndIsNotLeftInTheCache() async throws {
        let h = Harness()
        let url = URL(string: "https://example.test/bad.img")!
        h.network.stub(url, data: Data("PTST".utf8))

        do {
            _ = try await h.pipeline.image(for: ImageRequest(url: url))
            Issue.record("expected a failure")
        } catch {
            #expect(error.kind == .decoding)
            #expect(error.decodingError != nil)
        }
        #expect(!h.disk.contains(url.absoluteString))
        #expect(h.memory.count == 0)
        #expect(h.network.loadCount == 1, "a network result is not retried")
    }

    @Test func aCorruptProcessedVariantIsRemovedAndRebuilt() async throws {
        let h = Harness(policy: .both)
        let url = h.stub()
        let request = ImageRequest(url: url, processors: [h.tag(9)])
        h.disk.store(Data("PTST".utf8), for: h.pipeline.variantCacheKey(for: request))

        let response = try await h.pipeline.image(for: request)

        #expect(response.discardedCachedEntry)
        #expect(response.image.pixels.first == 9)
        #expect(h.disk.entry(for: h.pipeline.variantCacheKey(for: request))?.data == TestImageCodec.encode(response.image))
    }
}

@Suite(.timeLimit(.minutes(5)))
struct ImagePipelineSkipDecodeTests {
    @Test func skipDecodeFetchesAndCachesTheBytesWithoutDecoding() async throws {
        let h = Harness()
        let url = h.stub(width: 30, height: 20)

        let first = try await h.pipeline.image(for: ImageRequest(url: url, options: .skipDecode))
        let second = try await h.pipeline.image(for: ImageRequest(url: url, options: .skipDecode))

        #expect(first.cacheLayer == .network && second.cacheLayer == .disk)
        #expect(first.metrics.originalByteCount == TestImageCodec.encode(width: 30, height: 20).count)
        #expect(h.decoder.decodeCount == 0)
        #expect(h.disk.contains(url.absoluteString))
        #expect(h.memory.count == 0)
    }

    @Test func skipDecodeStillAnswersFromMemory() async throws {
        let h = Harness()
        let url = h.stub(width: 30, height: 20)
        _ = try await h.pipeline.image(for: ImageRequest(url: url))

        let response = try await h.pipeline.image(for: ImageRequest(url: url, options: .skipDecode))

        #expect(response.cacheLayer == .memory && response.image.width == 30)
    }
}

@Suite(.timeLimit(.minutes(5)))
struct ImagePipelineRevalidationTests {
    @Test func aRevalidatedDiskEntryIsServedFromDiskAndSaysSo() async throws {
        let h = Harness(memoryCache: false) { $0.httpCachePolicy = .http }
        let url = URL(string: "https://example.test/revalidated.img")!
        h.network.stub(url, MockDataLoader.Stub(
            headers: ["ETag": "\"v1\"", "Cache-Control": "no-cache"], body: TestImageCodec.encode(width: 64, height: 48)))
        _ = try await h.pipeline.image(for: ImageRequest(url: url))
        h.network.setRevalidating(url)

        let response = try await h.pipeline.image(for: ImageRequest(url: url))

        #expect(response.cacheLayer == .disk)
        #expect(response.isRevalidated)
        #expect((response.urlResponse as? HTTPURLResponse)?.statusCode == 304)
        #expect(h.network.loadCount == 2)
        #expect(h.network.loads.last?.request.value(forHTTPHeaderField: "If-None-Match") == "\"v1\"")
    }
}

@Suite(.timeLimit(.minutes(5)))
struct ImagePipelineCacheRemovalTests {
    @Test func removingARequestsEntriesEmptiesEveryLayerForIt() async throws {
        let h = Harness(policy: .both)
        let url = h.stub()
        let request = ImageRequest(url: url, processors: [h.tag(1)])
        _ = try await h.pipeline.image(for: request)
        #expect(h.disk.keys.count == 2)

        h.pipeline.removeCachedImage(for: request)

        #expect(h.disk.keys.isEmpty)
        #expect(h.pipeline.cachedImage(for: request) == nil)
        let again = try await h.pipeline.image(for: request)
        #expect(again.cacheLayer == .network)
    }

    @Test func removingAllCachedImagesKeepsTheDiskUnlessAsked() async throws {
        let h = Harness()
        let url = h.stub()
        _ = try await h.pipeline.image(for: ImageRequest(url: url))

        h.pipeline.removeAllCachedImages()
        #expect(h.memory.count == 0 && h.disk.keys.count == 1)
        h.pipeline.removeAllCachedImages(includingDisk: true)
        #expect(h.disk.keys.isEmpty)
    }
}

@Suite(.timeLimit(.minutes(5)))
struct ImagePipelineOriginalBytesTests {
    @Test func dataRequestsStoreTheOriginalEvenUnderTheProcessedPolicy() async throws {
        let h = Harness(policy: .processed)
        let url = h.stub()

        _ = try await h.pipeline.data(for: ImageRequest(url: url, processors: [h.tag(1)]))
        _ = try await h.pipeline.image(for: ImageRequest(url: url, processors: [h.tag(2)], options: .skipDecode))

        #expect(h.disk.keys == [url.absoluteString])
        #expect(h.network.loadCount == 1)
    }
}
