import Foundation
import PictorCore
import PictorTestSupport
import Testing

@Suite(.timeLimit(.minutes(5)))
struct ImagePipelineTests {
    @Test func aFirstLoadComesFromTheNetworkAndIsStoredInBothCaches() async throws {
        // Given
        let h = Harness()
        let url = h.stub(width: 64, height: 48)

        // When
        let response = try await h.pipeline.image(for: ImageRequest(url: url))

        // Then
        #expect(response.cacheLayer == .network)
        #expect(response.image.width == 64 && response.image.height == 48)
        #expect(response.urlResponse != nil)
        #expect(response.metrics.originalByteCount == TestImageCodec.encode(width: 64, height: 48).count)
        #expect(h.memory.peek(ImageCacheKey(url.absoluteString)) != nil)
        #expect(h.disk.contains(url.absoluteString))
        #expect(h.network.loadCount == 1)
        #expect(h.decoder.decodeCount == 1)
    }

    @Test func aSecondLoadComesFromMemoryWithoutFetchingOrDecoding() async throws {
        let h = Harness()
        let url = h.stub()
        _ = try await h.pipeline.image(for: ImageRequest(url: url))

        let response = try await h.pipeline.image(for: ImageRequest(url: url))

        #expect(response.cacheLayer == .memory)
        #expect(h.network.loadCount == 1)
        #expect(h.decoder.decodeCount == 1)
        #expect(h.pipeline.cachedImage(for: ImageRequest(url: url)) != nil)
    }

    @Test func aLoadAfterTheMemoryCacheIsClearedComesFromDisk() async throws {
        let h = Harness()
        let url = h.stub()
        _ = try await h.pipeline.image(for: ImageRequest(url: url))
        h.memory.removeAll()

        let response = try await h.pipeline.image(for: ImageRequest(url: url))

        #expect(response.cacheLayer == .disk)
        #expect(response.urlResponse == nil)
        #expect(h.network.loadCount == 1)
        #expect(h.decoder.decodeCount == 2)
        #expect(h.memory.peek(ImageCacheKey(url.absoluteString)) != nil, "a disk hit is promoted to memory")
    }

    @Test func aThumbnailIsDecodedAtItsSize() async throws {
        let h = Harness()
        let url = h.stub(width: 400, height: 200)

        let response = try await h.pipeline.image(for: ImageRequest(url: url, thumbnail: ThumbnailOptions(width: 100)))

        #expect(response.image.width == 100 && response.image.height == 50)
        #expect(h.decoder.recordedOptions.map(\.thumbnail) == [ThumbnailOptions(width: 100)])
    }

    @Test func aLeadingResizeProcessorIsFoldedIntoTheDecode() async throws {
        let h = Harness()
        let url = h.stub(width: 400, height: 200)
        let resize = TestResizeProcessor(width: 100, log: h.processors)

        let response = try await h.pipeline.image(for: ImageRequest(url: url, processors: [resize, h.tag(7)]))

        #expect(response.image.width == 100 && response.image.height == 50)
        #expect(h.decoder.recordedOptions.map(\.thumbnail) == [ThumbnailOptions(width: 100)])
        #expect(h.processors.count(resize.identifier) == 0, "shrink-on-load, never a full decode then a resize")
        #expect(h.processors.count("tag(7)") == 1)
        #expect(response.image.pixels.first == 7)
    }

    @Test func aResizeIsNotFoldedWhenTheRequestHasAnExplicitThumbnail() async throws {
        let h = Harness()
        let url = h.stub(width: 400, height: 200)
        let resize = TestResizeProcessor(width: 50, log: h.processors)

        let response = try await h.pipeline.image(
            for: ImageRequest(url: url, processors: [resize], thumbnail: ThumbnailOptions(width: 200)))

        #expect(response.image.width == 50)
        #expect(h.decoder.recordedOptions.map(\.thumbnail) == [ThumbnailOptions(width: 200)])
        #expect(h.processors.count(resize.identifier) == 1)
    }

    @Test func processorsRunInOrderAndEnterTheCacheKey() async throws {
        let h = Harness()
        let url = h.stub()
        let request = ImageRequest(url: url, processors: [h.tag(1), h.tag(2)])

        let response = try await h.pipeline.image(for: request)

        #expect(response.image.pixels.first == 2)
        let key = url.absoluteString
        #expect(h.pipeline.imageCacheKey(for: request).rawValue == "\(key.utf8.count):\(key)P11:user:tag(1)11:user:tag(2)")
        #expect(h.memory.storedKeys == [h.pipeline.imageCacheKey(for: request)])
    }

    @Test func chainsWhoseIdentifiersContainSeparatorsNeverShareACacheKey() {
        // Joining identifiers with "|" once gave ["a|b", "c"] and ["a", "b|c"] the same key.
        let h = Harness()
        let url = URL(string: "https://example.org/a.jpg")!
        func custom(_ id: String) -> ImageProcessors.Anonymous { .custom(identifier: id) { image, _ in image } }
        let first = ImageRequest(url: url, processors: [custom("a|b"), custom("c")])
        let second = ImageRequest(url: url, processors: [custom("a"), custom("b|c")])
        let thumbnailed = ImageRequest(url: url, processors: [custom("x")], thumbnail: ThumbnailOptions(width: 8))
        let inIdentifier = ImageRequest(url: url, processors: [custom("T" + ThumbnailOptions(width: 8).identifier), custom("x")])
        #expect(h.pipeline.imageCacheKey(for: first) != h.pipeline.imageCacheKey(for: second))
        #expect(h.pipeline.imageCacheKey(for: thumbnailed) != h.pipeline.imageCacheKey(for: inIdentifier))
    }

    @Test func theCacheKeyHookMapsURLsToKeys() async throws {
        // Signed URLs that differ only in their signature share one entry.
        let h = Harness { configuration in
            configuration.cacheKey = { request in
                var components = URLComponents(url: request.url!, resolvingAgainstBaseURL: false)!
                components.queryItems = components.queryItems?.filter { $0.name != "sig" }
                if components.queryItems?.isEmpty == true { components.queryItems = nil }
                return components.string!
            }
        }
        let first = URL(string: "https://example.test/a.img?sig=1")!
        let second = URL(string: "https://example.test/a.img?sig=2")!
        h.network.stub(first, data: TestImageCodec.encode(width: 8, height: 8))
        h.network.stub(second, data: TestImageCodec.encode(width: 8, height: 8))

        _ = try await h.pipeline.image(for: ImageRequest(url: first))
        let response = try await h.pipeline.image(for: ImageRequest(url: second))

        #expect(response.cacheLayer == .memory)
        #expect(h.disk.keys == ["https://example.test/a.img"])
    }

    @Test func byDefaultTheWholeURLWithItsQueryIsTheKey() async throws {
        let h = Harness()
        let first = h.stub("a.img?v=1"), second = h.stub("a.img?v=2")

        _ = try await h.pipeline.image(for: ImageRequest(url: first))
        let response = try await h.pipeline.image(for: ImageRequest(url: second))

        #expect(response.cacheLayer == .network)
        #expect(h.pipeline.dataCacheKey(for: ImageRequest(url: second)) == second.absoluteString)
    }

    @Test func dataForARequestFetchesTheOriginalBytesWithoutDecoding() async throws {
        let h = Harness()
        let url = h.stub(width: 10, height: 10)

        let response = try await h.pipeline.data(for: ImageRequest(url: url))
        let again = try await h.pipeline.data(for: ImageRequest(url: url))

        #expect(response.data == TestImageCodec.encode(width: 10, height: 10))
        #expect(response.cacheLayer == .network)
        #expect(again.cacheLayer == .disk)
        #expect(h.decoder.decodeCount == 0)
    }

    @Test func aURLAloneLoadsLikeARequestForIt() async throws {
        let h = Harness(memoryCache: false)
        let url = h.stub(width: 12, height: 9)

        let image = try await h.pipeline.image(for: url)
        let data = try await h.pipeline.data(for: url)

        #expect(image.request.url == url)
        #expect(image.image.width == 12 && image.image.height == 9)
        #expect(image.cacheLayer == .network)
        #expect(data.data == TestImageCodec.encode(width: 12, height: 9))
        #expect(data.cacheLayer == .disk, "the same data key as the image request")
        #expect(h.network.loadCount == 1)
    }

    @Test func aURLLoadThatFailsThrowsThePipelinesError() async {
        let h = Harness()
        await #expect(throws: ImagePipeline.Error.self) { try await h.pipeline.image(for: URL(string: "https://example.test/missing")!) }
        await #expect(throws: ImagePipeline.Error.self) { try await h.pipeline.data(for: URL(string: "https://example.test/missing")!) }
    }
}
