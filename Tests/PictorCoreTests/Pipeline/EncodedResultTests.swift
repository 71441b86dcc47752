import Foundation
@testable import PictorCore
import PictorTestSupport
import Synchronization
import Testing

/// `ImagePipeline.encodedResult(for:)`: one job per encoded key, the disk tier's stored result
/// first, encodes on the processing queue, and its own error kinds.
@Suite(.timeLimit(.minutes(5)))
struct EncodedResultTests {
    private func request(_ url: URL, format: ImageFormat? = .png, quality: Int = 80) -> EncodedResultRequest {
        EncodedResultRequest(imageRequest: ImageRequest(url: url), format: format, quality: quality)
    }

    private func start(_ h: Harness, _ request: EncodedResultRequest) -> Task<EncodedResultResponse, any Error> {
        Task { try await h.pipeline.encodedResult(for: request) }
    }

    @Test func concurrentCallersShareOneLoadAndOneEncode() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()
        let request = request(url)

        let callers = (0..<20).map { _ in start(h, request) }
        await until { h.pipeline.encodedResults.subscriberCount == 20 }
        h.network.gate.open()
        let responses = try await callers.asyncMap { try await $0.value }

        #expect(h.network.loadCount == 1)
        #expect(h.decoder.decodeCount == 1)
        #expect(h.encoder.encodeCount == 1)
        #expect(h.pipeline.statistics.resultEncodes == 1)
        #expect(responses.filter(\.wasShared).count == 19)
        #expect(Set(responses.map(\.image)).count == 1)
        #expect(responses.allSatisfy { $0.layer == .encoded(from: .network) })
        #expect(h.disk.keys.contains(h.pipeline.encodedResultKey(for: request.imageRequest, format: .png, quality: 80)))
        #expect(h.pipeline.isIdle)
    }

    @Test func aCancelledCallerLeavesWithoutStoppingTheJobForTheOthers() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()
        let request = request(url)

        let leaving = start(h, request)
        let staying = start(h, request)
        await until { h.pipeline.encodedResults.subscriberCount == 2 }
        leaving.cancel()
        let error = await #expect(throws: ImagePipeline.Error.self) { try await leaving.value }
        #expect(error == .cancelled)
        #expect(h.pipeline.encodedResults.subscriberCount == 1)
        #expect(h.pipeline.encodedResults.count == 1)

        h.network.gate.open()
        let response = try await staying.value
        #expect(response.layer == .encoded(from: .network))
        #expect(h.network.loadCount == 1)
        #expect(h.encoder.encodeCount == 1)
    }

    @Test func theLastCallerLeavingCancelsTheJob() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()
        let request = request(url)

        let callers = (0..<2).map { _ in start(h, request) }
        await until { h.pipeline.encodedResults.subscriberCount == 2 }
        await h.network.gate.waitUntil(waiting: 1)
        for caller in callers { caller.cancel() }
        for caller in callers {
            let error = await #expect(throws: ImagePipeline.Error.self) { try await caller.value }
            #expect(error == .cancelled)
        }
        // The job, and the load under it, stopped: the download left the gate.
        await until { h.pipeline.isIdle && h.network.gate.waitingCount == 0 }
        h.network.gate.open()
        #expect(h.encoder.encodeCount == 0)

        // The next caller starts afresh.
        let later = try await h.pipeline.encodedResult(for: request)
        #expect(!later.wasShared)
        #expect(h.network.loadCount == 2)
        #expect(h.encoder.encodeCount == 1)
    }

    @Test func callersWithOtherOptionsOrLimitsStartJobsOfTheirOwn() async throws {
        let h = Harness()
        let url = h.stub(width: 64, height: 48)
        h.network.gate.close()
        let plain = start(h, request(url))
        await h.network.gate.waitUntil(waiting: 1)

        // A cache-only caller does not wait for the download it did not ask for …
        var cacheOnly = request(url)
        cacheOnly.imageRequest = ImageRequest(url: url, options: [.returnCacheDataDontLoad])
        let missed = await #expect(throws: ImagePipeline.Error.self) { try await h.pipeline.encodedResult(for: cacheOnly) }
        #expect(missed?.kind == .loading)

        // … and a caller with a tighter limit is never given a result over it.
        var limited = request(url)
        limited.maximumDimension = 32
        let tight = start(h, limited)
        await until { h.pipeline.encodedResults.count == 2 }
        h.network.gate.open()

        #expect(try await plain.value.image.width == 64)
        let refused = await #expect(throws: ImagePipeline.Error.self) { try await tight.value }
        #expect(refused?.kind == .resultTooLarge)
        #expect(h.network.loadCount == 1)
    }

    @Test func equivalentKeysNeverShareAnEncodedResult() async throws {
        // A cache-key hook that names two URLs by two spellings Swift's String calls equal.
        let h = Harness { configuration in
            configuration.cacheKey = { $0.url?.lastPathComponent == "a.img" ? "caf\u{E9}" : "cafe\u{301}" }
        }
        let a = h.stub("a.img", width: 10), b = h.stub("b.img", width: 20)
        h.network.gate.close()
        let callers = [a, b].map { start(h, request($0)) }
        await until { h.pipeline.encodedResults.count == 2 }
        h.network.gate.open()

        let responses = try await callers.asyncMap { try await $0.value }
        #expect(responses.map(\.image.width) == [10, 20])
        #expect(responses.allSatisfy { !$0.wasShared })
    }

    @Test func aStoredResultAnswersWithoutDecodingOrEncoding() async throws {
        let h = Harness()
        let url = h.stub(width: 64, height: 48)
        let request = EncodedResultRequest(
            imageRequest: ImageRequest(url: url, thumbnail: ThumbnailOptions(width: 32)), format: .webp, quality: 70)
        let made = try await h.pipeline.encodedResult(for: request)
        #expect(made.layer == .encoded(from: .network))
        #expect(made.image.width == 32 && made.image.format == .webp && made.image.quality == 70)

        // Nothing in memory: only the disk tier can answer.
        h.pipeline.removeAllCachedImages()
        let again = try await h.pipeline.encodedResult(for: request)

        #expect(again.layer == .storedResult)
        #expect(again.image == made.image)
        #expect(h.decoder.decodeCount == 1)
        #expect(h.encoder.encodeCount == 1)
        #expect(h.network.loadCount == 1)
        #expect(h.pipeline.statistics.resultEncodes == 1)
    }

    @Test func aResultMadeFromTheMemoryCacheSaysSo() async throws {
        let h = Harness(policy: .none)
        let url = h.stub()
        _ = try await h.pipeline.image(for: ImageRequest(url: url))

        let response = try await h.pipeline.encodedResult(for: request(url))

        #expect(response.layer == .encoded(from: .memory))
        #expect(h.decoder.decodeCount == 1)
        #expect(h.network.loadCount == 1)
    }

    @Test func encodesWaitForASlotOfTheProcessingQueueInPriorityOrder() async throws {
        let encoder = HeldEncoder()
        defer { encoder.open() }
        let h = Harness {
            $0.processingQueueWidth = 1
            $0.encoder = encoder
        }
        let first = h.stub("first.img", width: 10, height: 10)
        let low = h.stub("low.img", width: 20, height: 20)
        let high = h.stub("high.img", width: 30, height: 30)
        func request(_ url: URL, _ priority: RequestPriority) -> EncodedResultRequest {
            EncodedResultRequest(imageRequest: ImageRequest(url: url, priority: priority), format: .png, quality: 80)
        }

        let running = start(h, request(first, .normal))
        await until { encoder.widths.count == 1 }
        let waitingLow = start(h, request(low, .low))
        await until { h.pipeline.processQueue.waitingCount == 1 }
        let waitingHigh = start(h, request(high, .high))
        await until { h.pipeline.processQueue.waitingCount == 2 }
        // One slot, held by the first encode: the others wait in the processing queue.
        #expect(encoder.widths == [10])
        #expect(h.pipeline.processQueue.isBusy)

        encoder.open()
        _ = try await running.value
        _ = try await waitingLow.value
        _ = try await waitingHigh.value
        #expect(encoder.widths == [10, 30, 20])
        #expect(!encoder.ranInATask)
    }

    @Test func aResultOverTheDimensionLimitFailsBeforeItIsEncoded() async throws {
        let h = Harness()
        let url = h.stub(width: 64, height: 48)
        var request = request(url)
        request.maximumDimension = 32

        let error = await #expect(throws: ImagePipeline.Error.self) { try await h.pipeline.encodedResult(for: request) }

        #expect(error?.kind == .resultTooLarge)
        #expect(error?.resultSize.map { [$0.width, $0.height, $0.limit] } == [64, 48, 32])
        #expect(error == .resultTooLarge(width: 64, height: 48, limit: 32))
        #expect(error != .resultTooLarge(width: 64, height: 48, limit: 16))
        #expect(error?.description == "result too large: 64x48 pixels, over the limit of 32 a side")
        #expect(h.encoder.encodeCount == 0)
        #expect(!h.disk.keys.contains(h.pipeline.encodedResultKey(for: request.imageRequest, format: .png, quality: 80)))

        request.maximumDimension = 64
        #expect(try await h.pipeline.encodedResult(for: request).image.width == 64)
    }

    @Test func withoutAnEncoderTheKindIsNoEncoder() async throws {
        let h = Harness { $0.encoder = nil }
        let url = h.stub()

        let error = await #expect(throws: ImagePipeline.Error.self) { try await h.pipeline.encodedResult(for: request(url)) }

        #expect(error?.kind == .noEncoder)
        #expect(error == .noEncoder)
        #expect(error?.localizedDescription == "no image encoder is configured")
    }

    @Test func aFailedEncodeIsAnEncodingFailureAndNothingIsKept() async throws {
        let h = Harness()
        let url = h.stub()
        h.encoder.setFailing(true)

        let error = await #expect(throws: ImagePipeline.Error.self) { try await h.pipeline.encodedResult(for: request(url)) }

        #expect(error?.kind == .encoding)
        #expect(error?.encodingError?.kind == .failed)
        #expect(error?.description.hasPrefix("encoding failed: ") == true)
        #expect(!h.disk.keys.contains(h.pipeline.encodedResultKey(for: ImageRequest(url: url), format: .png, quality: 80)))
        h.encoder.setFailing(false)
        #expect(try await h.pipeline.encodedResult(for: request(url)).layer == .encoded(from: .memory))
    }

    @Test func aSourceOverTheByteLimitFailsBeforeItIsEncoded() async throws {
        let h = Harness()
        let url = h.stub()
        var request = request(url)
        request.maximumSourceByteCount = 4

        let error = await #expect(throws: ImagePipeline.Error.self) { try await h.pipeline.encodedResult(for: request) }

        #expect(error?.kind == .loading)
        #expect(error?.dataLoadingError == .responseTooLarge(limit: 4))
        #expect(h.encoder.encodeCount == 0)
    }

    @Test func theSourcesOwnFormatIsTheCallersRuleAndIsKeyedAuto() async throws {
        let h = Harness()
        let url = h.stub()
        var request = request(url, format: nil)
        request.automaticFormat = { image in image.width > 32 ? .webp : .jpeg }

        let response = try await h.pipeline.encodedResult(for: request)

        #expect(response.image.format == .webp)
        let key = h.pipeline.encodedResultKey(for: request.imageRequest, format: nil, quality: 80)
        #expect(key.hasSuffix("|encoded:auto:q80"))
        #expect(h.disk.keys.contains(key))
        #expect(h.pipeline.storedEncodedResult(for: request.imageRequest, format: nil, quality: 80)?.image.format == .webp)
    }
}

/// An encoder that holds every encode on the thread running it until ``open()``, recording
/// the width of each image as its encode starts.
private final class HeldEncoder: ImageEncoding, Sendable {
    private let state = Mutex((widths: [Int](), inTask: false))
    private let gate = DispatchSemaphore(value: 0)
    private let opened = Atomic<Bool>(false)

    var widths: [Int] { state.withLock { $0.widths } }
    /// Whether an encode ran inside a Swift task (so on an executor's thread, such as the
    /// cooperative pool's) rather than as plain work on a Dispatch thread.
    var ranInATask: Bool { state.withLock { $0.inTask } }

    func open() {
        if opened.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged { gate.signal() }
    }

    func encode(_ image: Image, as format: ImageFormat, quality: Int) throws -> Data {
        let inTask = withUnsafeCurrentTask { $0 != nil }
        state.withLock {
            $0.widths.append(image.width)
            if inTask { $0.inTask = true }
        }
        // Each encode passes the signal on, so once open every encode runs.
        gate.wait()
        gate.signal()
        return TestImageCodec.encode(image)
    }
}
