import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import PictorTestSupport
import Synchronization
import Testing

/// Previews while bytes arrive: the schedule's rules on their own, then through a pipeline of
/// fakes (a loader that hands its body over piece by piece at a gate, a decoder whose previews
/// are as wide as the bytes they saw). No I/O.
@Suite(.timeLimit(.minutes(1))) struct PreviewTests {
    // MARK: The schedule

    @Test func aDecodeStartsWhenBytesArriveAndAnotherOnlyAfterTheInterval() {
        var schedule = PreviewSchedule(interval: .milliseconds(100))
        let r1 = schedule.bytesArrived(now: .zero)
        #expect(r1)
        let r2 = schedule.bytesArrived(now: .milliseconds(1))
        #expect(!r2, "one decode at a time")
        let r3 = schedule.previewMade(now: .milliseconds(5))
        #expect(r3)
        let r4 = schedule.decodeEnded(now: .milliseconds(5), hasPendingBytes: true)
        #expect(!r4, "within the interval: wait")
        let r5 = schedule.bytesArrived(now: .milliseconds(104))
        #expect(!r5)
        let r6 = schedule.bytesArrived(now: .milliseconds(105))
        #expect(r6)
        let r7 = schedule.decodeEnded(now: .milliseconds(300), hasPendingBytes: true)
        #expect(r7, "due bytes arrived meanwhile: decode again")
        let r8 = schedule.decodeEnded(now: .milliseconds(301), hasPendingBytes: false)
        #expect(!r8)
        #expect(!schedule.isDecoding)
    }

    @Test func aPreviewMadeAfterTheScheduleClosedIsDropped() {
        var schedule = PreviewSchedule(interval: .zero)
        let r9 = schedule.bytesArrived(now: .zero)
        #expect(r9)
        schedule.close()   // the download ended while the decode ran
        let r10 = schedule.previewMade(now: .zero)
        #expect(!r10)
        let r11 = schedule.decodeEnded(now: .zero, hasPendingBytes: true)
        #expect(!r11)
        let r12 = schedule.bytesArrived(now: .seconds(1))
        #expect(!r12)
    }

    @Test func aTaskDropsAPreviewThatArrivesAfterItsResult() async throws {
        let task = ImageTask(request: ImageRequest(url: URL(string: "https://example.test/a.img")!))
        let previews = task.previews
        task.didPreview(TestImageCodec.makeImage(width: 1, height: 1))
        task.start { task in
            ImageResponse(image: TestImageCodec.makeImage(width: 2, height: 2), request: task.request, cacheLayer: .network)
        }
        let final = try await task.response
        task.didPreview(TestImageCodec.makeImage(width: 3, height: 3))
        var seen: [Int] = []
        for await preview in previews { seen.append(preview.image.width) }
        #expect(seen == [1])
        #expect(!final.isPreview)
        var late = task.previews.makeAsyncIterator()
        #expect(await late.next() == nil, "a finished task's stream ends at once")
    }

    @Test func aConsumerThatReadsLateGetsOnlyTheNewestPreview() async throws {
        let task = ImageTask(request: ImageRequest(url: URL(string: "https://example.test/a.img")!))
        let previews = task.previews
        for width in 1...5 { task.didPreview(TestImageCodec.makeImage(width: width, height: 1)) }
        task.start { task in
            ImageResponse(image: TestImageCodec.makeImage(width: 9, height: 9), request: task.request, cacheLayer: .network)
        }
        _ = try await task.response
        var seen: [Int] = []
        for await preview in previews { seen.append(preview.image.width) }
        #expect(seen == [5], "a preview a newer one replaced is not kept")
    }

    // MARK: Through the pipeline

    /// Answers with `pieces`, handing each to ``DataLoadOptions/bodyReceived`` after passing
    /// `gate`, then the whole body after passing it once more.
    final class PieceLoader: DataLoading, Sendable {
        let pieces: [Data]
        let gate = AsyncGate(isOpen: false)
        let loads = Atomic<Int>(0)
        let streamed = Atomic<Int>(0)

        init(pieces: [Data]) { self.pieces = pieces }

        func loadData(for request: URLRequest, options: DataLoadOptions) async throws -> (Data, URLResponse) {
            loads.add(1, ordering: .relaxed)
            if options.bodyReceived != nil { streamed.add(1, ordering: .relaxed) }
            var offset: Int64 = 0
            for piece in pieces {
                try await gate.pass()
                options.bodyReceived?(offset, piece)
                offset += Int64(piece.count)
            }
            try await gate.pass()
            let body = pieces.reduce(Data(), +)
            let response = HTTPURLResponse(
                url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Cache-Control": "max-age=60"])!
            return (body, response)
        }
    }

    /// Previews as wide as the bytes seen so far (a new one whenever bytes come).
    final class WidthPreviews: ImagePreviewDecoding, @unchecked Sendable {
        let kind: ImagePreviewKinds
        private var seen = 0
        init(kind: ImagePreviewKinds = .progressive) { self.kind = kind }
        func preview(appending bytes: Data) throws -> Image? {
            guard !bytes.isEmpty else { return nil }
            seen += bytes.count
            return TestImageCodec.makeImage(width: seen, height: 1)
        }
    }

    /// The test codec's decoder, with ``WidthPreviews`` of one kind, for the test codec's bytes
    /// behind a BMP signature: previews are asked of a decoder once the first bytes show a
    /// format, and it makes them only when their kind is among those asked.
    final class PreviewingDecoder: ImageDecoding {
        static let signature = Data([0x42, 0x4D] + [UInt8](repeating: 0, count: 12) + [40, 0, 0, 0])
        let base = CountingImageDecoder()
        let made = Atomic<Int>(0)
        let kind: ImagePreviewKinds
        let asked = Mutex<[ImagePreviewKinds]>([])
        init(kind: ImagePreviewKinds = .progressive) { self.kind = kind }
        func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
            try base.decode(Data(data.dropFirst(Self.signature.count)), options: options)
        }
        func makePreviewDecoder(format: ImageFormat, options: ImageDecodingOptions, kinds: ImagePreviewKinds) -> (any ImagePreviewDecoding)? {
            asked.withLock { $0.append(kinds) }
            guard kinds.contains(kind) else { return nil }
            made.add(1, ordering: .relaxed)
            return WidthPreviews(kind: kind)
        }
    }

    static let url = URL(string: "https://example.test/p.img")!

    /// The test image cut in three pieces, the first long enough to show the format.
    static func pieces() -> [Data] {
        let body = PreviewingDecoder.signature + TestImageCodec.encode(width: 16, height: 16)
        let first = PreviewingDecoder.signature.count + 2
        let second = (body.count - first) / 2
        return [body.prefix(first), body.dropFirst(first).prefix(second), body.dropFirst(first + second)].map { Data($0) }
    }

    func pipeline(_ loader: PieceLoader, _ decoder: PreviewingDecoder, clock: ManualClock = ManualClock(),
                  interval: Duration = .zero, enabled: Bool = false) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration(
            dataLoader: loader, decoder: decoder, imageCache: RecordingImageCache(), dataCache: InMemoryDataCache())
        configuration.previewInterval = interval
        configuration.isProgressiveDecodingEnabled = enabled
        configuration.monotonicNow = { clock.now.offset }
        return ImagePipeline(configuration: configuration)
    }

    /// Lets the loader hand over its next piece (or its answer).
    func step(_ loader: PieceLoader) async {
        await loader.gate.waitUntil(waiting: 1)
        loader.gate.releaseWaiting()
    }

    @Test func previewsArriveWhileBytesDoAndTheFinalImageEndsThem() async throws {
        let loader = PieceLoader(pieces: Self.pieces())
        let decoder = PreviewingDecoder()
        let pipeline = pipeline(loader, decoder)
        let task = pipeline.imageTask(for: ImageRequest(url: Self.url, options: [.progressivePreviews]))
        var previews = task.previews.makeAsyncIterator()
        var widths: [Int] = []
        for _ in Self.pieces() {
            await step(loader)
            let preview = try #require(await previews.next())
            #expect(preview.isPreview && preview.cacheLayer == .network)
            widths.append(preview.image.width)
        }
        await step(loader)
        let final = try await task.response
        #expect(await previews.next() == nil, "no preview after the final image")
        #expect(!final.isPreview && final.image.width == 16)
        #expect(widths == widths.sorted() && Set(widths).count == 3, "each more complete than the last: \(widths)")
        #expect(decoder.made.load(ordering: .relaxed) == 1)
    }

    @Test func aSlowConsumerOfAPipelineTaskGetsAtMostTheNewestPreview() async throws {
        let loader = PieceLoader(pieces: Self.pieces())
        let pipeline = pipeline(loader, PreviewingDecoder())
        let task = pipeline.imageTask(for: ImageRequest(url: Self.url, options: [.progressivePreviews]))
        // One stream read as previews come (to step in order), one read only after the end.
        var eager = task.previews.makeAsyncIterator()
        let late = task.previews
        var last = 0
        for _ in Self.pieces() {
            await step(loader)
            last = try #require(await eager.next()).image.width
        }
        await step(loader)
        let final = try await task.response
        var seen: [ImageResponse] = []
        for await preview in late { seen.append(preview) }
        #expect(seen.map(\.image.width) == [last], "only the newest undelivered preview is kept")
        #expect(seen.allSatisfy(\.isPreview) && !final.isPreview)
    }

    @Test func previewsAreThrottledOnThePipelinesClock() async throws {
        let loader = PieceLoader(pieces: Self.pieces())
        let clock = ManualClock()
        let pipeline = pipeline(loader, PreviewingDecoder(), clock: clock, interval: .milliseconds(100), enabled: true)
        let task = pipeline.imageTask(for: ImageRequest(url: Self.url))
        var previews = task.previews.makeAsyncIterator()
        await step(loader)
        #expect(try #require(await previews.next()).image.width == Self.pieces()[0].count)
        // Too soon: the second piece waits for bytes that come after the interval.
        await step(loader)
        await loader.gate.waitUntil(waiting: 1)
        clock.advance(by: .milliseconds(100))
        await step(loader)
        let second = try #require(await previews.next())
        #expect(second.image.width == Self.pieces().reduce(0) { $0 + $1.count }, "the bytes held back come with the next decode")
        await step(loader)
        _ = try await task.response
        #expect(await previews.next() == nil)
    }

    @Test func aSharedDownloadIsPreviewedOnceForEveryTaskThatAsked() async throws {
        let loader = PieceLoader(pieces: Self.pieces())
        let decoder = PreviewingDecoder()
        let pipeline = pipeline(loader, decoder, enabled: true)
        let first = pipeline.imageTask(for: ImageRequest(url: Self.url))
        // A different thumbnail: its own decode, the same download.
        let second = pipeline.imageTask(for: ImageRequest(url: Self.url, thumbnail: ThumbnailOptions(width: 4)))
        var a = first.previews.makeAsyncIterator()
        var b = second.previews.makeAsyncIterator()
        await loader.gate.waitUntil(waiting: 1)
        while pipeline.fetches.subscriberCount < 2 { await Task.yield() }
        for _ in Self.pieces() {
            await step(loader)
            let fromA = try #require(await a.next()), fromB = try #require(await b.next())
            #expect(fromA.image.width == fromB.image.width)
        }
        await step(loader)
        _ = try await (first.response, second.response)
        #expect(loader.loads.load(ordering: .relaxed) == 1)
        #expect(decoder.made.load(ordering: .relaxed) == 1)
    }

    @Test func withoutOptInNothingIsStreamed() async throws {
        let loader = PieceLoader(pieces: Self.pieces())
        let pipeline = pipeline(loader, PreviewingDecoder())
        let task = pipeline.imageTask(for: ImageRequest(url: Self.url))
        for _ in 0...Self.pieces().count { await step(loader) }
        _ = try await task.response
        #expect(loader.streamed.load(ordering: .relaxed) == 0)
        // Nor for `image(for:)`, which has no preview stream, under the pipeline's opt-in.
        let enabled = self.pipeline(loader, PreviewingDecoder(), enabled: true)
        async let image = enabled.image(for: ImageRequest(url: URL(string: "https://example.test/q.img")!))
        for _ in 0...Self.pieces().count { await step(loader) }
        _ = try await image
        #expect(loader.streamed.load(ordering: .relaxed) == 0)
    }

    @Test func aCachedImageHasNoPreviews() async throws {
        let loader = PieceLoader(pieces: Self.pieces())
        let pipeline = pipeline(loader, PreviewingDecoder(), enabled: true)
        let first = pipeline.imageTask(for: ImageRequest(url: Self.url))
        for _ in 0...Self.pieces().count { await step(loader) }
        _ = try await first.response
        // From the disk cache (the memory cache skipped): the loader is never asked.
        let again = pipeline.imageTask(for: ImageRequest(url: Self.url, options: [.disableMemoryCacheReads]))
        var previews = again.previews.makeAsyncIterator()
        let response = try await again.response
        #expect(response.cacheLayer == .disk)
        #expect(await previews.next() == nil)
        #expect(loader.loads.load(ordering: .relaxed) == 1)
    }

    // MARK: Incremental previews

    @Test func incrementalPreviewsTakeTheirOwnOptIn() async throws {
        // Progressive previews alone: the decoder is asked for that kind only, and makes none.
        let loader = PieceLoader(pieces: Self.pieces())
        let rows = PreviewingDecoder(kind: .incremental)
        let off = pipeline(loader, rows, enabled: true)
        let plain = off.imageTask(for: ImageRequest(url: Self.url, options: [.progressivePreviews]))
        var none = plain.previews.makeAsyncIterator()
        await step(loader)
        while rows.asked.withLock({ $0.isEmpty }) { await Task.yield() }
        for _ in 1...Self.pieces().count { await step(loader) }
        _ = try await plain.response
        #expect(await none.next() == nil)
        #expect(rows.asked.withLock { $0 } == [.progressive])

        // The request's option, then the pipeline's flag: previews of rows arrive.
        for pipelineWide in [false, true] {
            let loader = PieceLoader(pieces: Self.pieces())
            let rows = PreviewingDecoder(kind: .incremental)
            var configuration = ImagePipeline.Configuration(
                dataLoader: loader, decoder: rows, imageCache: RecordingImageCache(), dataCache: nil)
            configuration.previewInterval = .zero
            configuration.isIncrementalDecodingEnabled = pipelineWide
            let pipeline = ImagePipeline(configuration: configuration)
            let task = pipeline.imageTask(for: ImageRequest(url: Self.url, options: pipelineWide ? [] : [.incrementalPreviews]))
            var previews = task.previews.makeAsyncIterator()
            await step(loader)
            #expect(try #require(await previews.next()).isPreview)
            for _ in 1...Self.pieces().count { await step(loader) }
            _ = try await task.response
            #expect(rows.asked.withLock { $0 } == [[.progressive, .incremental]])
        }
    }

    @Test func aSharedDownloadGivesIncrementalPreviewsOnlyToTasksThatAskedForThem() async throws {
        let loader = PieceLoader(pieces: Self.pieces())
        let decoder = PreviewingDecoder(kind: .incremental)
        let pipeline = pipeline(loader, decoder)
        let rows = pipeline.imageTask(for: ImageRequest(url: Self.url, options: [.incrementalPreviews]))
        // A different thumbnail: its own decode, the same download.
        let scans = pipeline.imageTask(for: ImageRequest(url: Self.url, thumbnail: ThumbnailOptions(width: 4),
                                                         options: [.progressivePreviews]))
        var a = rows.previews.makeAsyncIterator()
        let b = scans.previews
        await loader.gate.waitUntil(waiting: 1)
        while pipeline.fetches.subscriberCount < 2 { await Task.yield() }
        for _ in Self.pieces() {
            await step(loader)
            _ = try #require(await a.next())
        }
        await step(loader)
        _ = try await (rows.response, scans.response)
        var late = b.makeAsyncIterator()
        #expect(await late.next() == nil, "the progressive-only task took none of the rows")
        #expect(decoder.made.load(ordering: .relaxed) == 1)
    }
}
