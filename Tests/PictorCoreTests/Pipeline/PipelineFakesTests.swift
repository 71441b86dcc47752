import Foundation
import PictorCore
import PictorTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.timeLimit(.minutes(5)))
struct PipelineFakesTests {
    @Test func theManualClockWakesSleepersOnlyWhenAdvancedPastTheirDeadline() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(10)) }
        await until { clock.sleeperCount == 1 }

        clock.advance(by: .seconds(9))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))

        try await sleeper.value
        #expect(clock.now.offset == .seconds(10))
    }

    @Test func aCancelledManualClockSleeperThrows() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
        await until { clock.sleeperCount == 1 }

        sleeper.cancel()

        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func theMockLoaderReportsProgressAndCounts() async throws {
        let loader = MockDataLoader()
        let url = URL(string: "https://example.test/x")!
        loader.stub(url, MockDataLoader.Stub(headers: ["ETag": "\"1\""], body: Data(repeating: 7, count: 10), progressSteps: 3))
        let progress = ProgressRecorder()

        let (data, response) = try await loader.data(for: URLRequest(url: url), progress: { progress.record(Data(), $0) })

        #expect(data == Data(repeating: 7, count: 10))
        #expect(progress.recorded.map(\.completed) == [3, 6, 10])
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "ETag") == "\"1\"")
        #expect(loader.loadCount(for: url) == 1)
    }

    @Test func theMockLoaderFailsUnknownURLsWith404AndHoldsAtItsGate() async throws {
        let loader = MockDataLoader()
        let url = URL(string: "https://example.test/unknown")!
        loader.gate.close()
        let load = Task { try await loader.data(for: URLRequest(url: url)) }
        await loader.gate.waitUntil(waiting: 1)
        loader.gate.open()

        await #expect(throws: DataLoadingError.statusCode(404)) { _ = try await load.value }
    }

    @Test func theTestCodecRoundTripsAndShrinksOnLoad() throws {
        let decoder = CountingImageDecoder()
        let data = TestImageCodec.encode(width: 300, height: 100, layout: .rgba, fill: 9, marker: 4)

        let full = try decoder.decode(data, options: ImageDecodingOptions())
        let thumb = try decoder.decode(data, options: ImageDecodingOptions(thumbnail: ThumbnailOptions(width: 30)))

        #expect(full.width == 300 && full.height == 100 && full.layout == .rgba)
        #expect(full.pixels.first == 4 && full.pixels.last == 9)
        #expect(thumb.width == 30 && thumb.height == 10)
        #expect(TestImageCodec.encode(full) == data)
        #expect(throws: ImageDecodingError.unknownFormat) { try decoder.decode(Data("GIF89a".utf8), options: ImageDecodingOptions()) }
        #expect(decoder.decodeCount == 3)
    }

    @Test func theInMemoryRendererResizesCropsAndMasks() throws {
        let renderer = InMemoryRenderer()
        let image = TestImageCodec.makeImage(width: 40, height: 20)

        #expect(try renderer.resize(image, to: ThumbnailOptions(width: 10)).width == 10)
        #expect(try renderer.crop(image, x: 5, y: 5, width: 10, height: 10).height == 10)
        #expect(try renderer.circle(image).layout == .rgba)
        #expect(try renderer.grayscale(image).layout == .gray)
        #expect(renderer.operationCounts["resize"] == 1)
    }
}
