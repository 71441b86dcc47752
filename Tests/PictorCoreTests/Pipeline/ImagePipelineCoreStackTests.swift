import Foundation
import PictorCore
import PictorTestSupport
import Testing

/// The pipeline over the core's real layers — ``ImageCache`` and the fetch stage's HTTP caching
/// — with only the network, the disk store and the decoder faked.
@Suite(.timeLimit(.minutes(5)))
struct ImagePipelineCoreStackTests {
    let loader = MockDataLoader()
    let disk = InMemoryDataCache()
    let decoder = CountingImageDecoder()
    let pipeline: ImagePipeline

    init() {
        pipeline = ImagePipeline(configuration: ImagePipeline.Configuration(
            dataLoader: loader, decoder: decoder,
            imageCache: ImageCache(), dataCache: disk, renderer: InMemoryRenderer()))
    }

    func stub(_ name: String, status: Int = 200) -> URL {
        let url = URL(string: "https://example.test/\(name)")!
        loader.stub(url, MockDataLoader.Stub(
            statusCode: status, headers: ["Cache-Control": "max-age=3600"], body: TestImageCodec.encode(width: 40, height: 30)))
        return url
    }

    @Test func layersAreMemoryThenDiskThenNetwork() async throws {
        let url = stub("a.img")
        let request = ImageRequest(url: url, processors: [.resize(width: 20)])

        let first = try await pipeline.image(for: request)
        let second = try await pipeline.image(for: request)
        pipeline.removeAllCachedImages()
        let third = try await pipeline.image(for: request)

        #expect([first.cacheLayer, second.cacheLayer, third.cacheLayer] == [.network, .memory, .disk])
        #expect(third.image.width == 20 && third.image.height == 15)
        #expect(decoder.recordedOptions.map(\.thumbnail?.width) == [20, 20], "the resize is done at decode time")
        #expect(loader.loadCount == 1)
    }

    @Test func concurrentRequestsMakeOneTransferAndOneDecode() async throws {
        let url = stub("b.img")
        loader.gate.close()

        let tasks = (0..<200).map { _ in pipeline.imageTask(for: ImageRequest(url: url)) }
        await loader.gate.waitUntil(waiting: 1)
        await until { pipeline.statistics.requests == 200 }
        loader.gate.open()
        for task in tasks { _ = try await task.response }

        #expect(loader.loadCount == 1)
        #expect(decoder.decodeCount == 1)
    }

    @Test func anErrorStatusIsALoadingErrorAndNothingIsCached() async throws {
        let url = stub("c.img", status: 404)

        let error = await #expect(throws: ImagePipeline.Error.self) { try await pipeline.image(for: ImageRequest(url: url)) }

        #expect(error?.dataLoadingError == .statusCode(404))
        #expect(!disk.contains(url.absoluteString))
    }

    @Test func aCorruptDiskEntryIsReplacedFromTheNetwork() async throws {
        let url = stub("d.img")
        disk.store(Data("PTST".utf8), for: url.absoluteString, metadata: DataCacheMetadata(cacheControl: "max-age=3600",
                                                                                            expiresAt: Date().addingTimeInterval(3600)))

        let response = try await pipeline.image(for: ImageRequest(url: url))

        #expect(response.cacheLayer == .network && response.discardedCachedEntry)
        #expect(disk.entry(for: url.absoluteString)?.data == TestImageCodec.encode(width: 40, height: 30))
    }
}
