import Foundation
@testable import PictorCore
import PictorTestSupport
import Synchronization
import Testing

/// A target that records what it was asked to show: `placeholder`, `image(<marker>)` or
/// `failure`, with `nil` images as `clear`.
final class RecordingTarget: ImageLoadingTarget {
    private let log = Mutex<[String]>([])
    var shown: [String] { log.withLock { $0 } }

    func display(_ image: Image?, phase: ImageLoadingPhase) {
        let what: String
        switch phase {
        case .placeholder: what = image == nil ? "clear" : "placeholder"
        case .success: what = "image(\(image!.pixels.first!))"
        case .failure: what = "failure"
        }
        log.withLock { $0.append(what) }
    }
}

@Suite(.timeLimit(.minutes(5)))
struct ImageTargetBinderTests {
    let placeholder = TestImageCodec.makeImage(width: 1, height: 1)

    @Test func aMemoryHitIsShownSynchronouslyWithoutATask() async throws {
        let h = Harness()
        let url = h.stub()
        let request = ImageRequest(url: url, processors: [h.tag(3)])
        _ = try await h.pipeline.image(for: request)
        let target = RecordingTarget()
        let binder = ImageTargetBinder(target: target, pipeline: h.pipeline)

        let task = binder.setImage(with: request, placeholder: placeholder)

        #expect(task == nil)
        #expect(target.shown == ["image(3)"])
    }

    @Test func aMissShowsThePlaceholderThenTheImage() async throws {
        let h = Harness()
        let url = h.stub()
        let target = RecordingTarget()
        let binder = ImageTargetBinder(target: target, pipeline: h.pipeline)

        let task = try #require(binder.setImage(with: ImageRequest(url: url, processors: [h.tag(4)]), placeholder: placeholder))
        #expect(target.shown == ["placeholder"])
        _ = try await task.response
        await until { target.shown.count == 2 }

        #expect(target.shown == ["placeholder", "image(4)"])
        #expect(binder.currentTask == nil)
    }

    @Test func aNewRequestCancelsThePreviousOne() async throws {
        let h = Harness()
        let first = h.stub("1.img"), second = h.stub("2.img")
        h.network.gate.close()
        let binder = ImageTargetBinder(target: RecordingTarget(), pipeline: h.pipeline)

        let old = try #require(binder.setImage(with: ImageRequest(url: first)))
        await h.network.gate.waitUntil(waiting: 1)
        let new = try #require(binder.setImage(with: ImageRequest(url: second)))

        #expect(old.state == .cancelled)
        #expect(new.state == .running)
        await until { h.network.loadCount(for: second) == 1 && h.network.gate.waitingCount == 1 }
        h.network.gate.open()
        _ = try await new.response
    }

    @Test func onlyTheLatestRequestSetsTheImageWhenResultsArriveOutOfOrder() async throws {
        // Given A, whose download a live caller keeps alive, then B, on a reused target
        let h = Harness()
        let a = h.stub("a.img"), b = h.stub("b.img")
        let gateA = h.network.gate(for: a), gateB = h.network.gate(for: b)
        let live = h.pipeline.imageTask(for: ImageRequest(url: a, processors: [h.tag(1)]))
        let target = RecordingTarget()
        let binder = ImageTargetBinder(target: target, pipeline: h.pipeline)
        let failure = TestImageCodec.makeImage(width: 1, height: 1, marker: 99)

        binder.setImage(with: ImageRequest(url: a, processors: [h.tag(1)]), placeholder: placeholder, failureImage: failure)
        let taskB = try #require(binder.setImage(with: ImageRequest(url: b, processors: [h.tag(2)]), placeholder: placeholder, failureImage: failure))

        // When B completes first, then A
        await gateB.waitUntil(waiting: 1)
        gateB.open()
        _ = try await taskB.response
        await until { target.shown.count == 3 }
        await gateA.waitUntil(waiting: 1)
        gateA.open()
        _ = try await live.response

        // Then A never shows (neither its image nor the failure image for its cancellation)
        #expect(target.shown == ["placeholder", "placeholder", "image(2)"])
    }

    @Test func aFailureShowsTheFailureImage() async throws {
        let h = Harness()
        let url = URL(string: "https://example.test/gone.img")!
        h.network.stub(url, error: .statusCode(410))
        let target = RecordingTarget()
        let binder = ImageTargetBinder(target: target, pipeline: h.pipeline)

        let outcome = await withCheckedContinuation { continuation in
            binder.setImage(with: ImageRequest(url: url), placeholder: placeholder,
                            failureImage: TestImageCodec.makeImage(width: 1, height: 1)) { continuation.resume(returning: $0) }
        }

        #expect(throws: ImagePipeline.Error.self) { try outcome.get() }
        #expect(target.shown == ["placeholder", "failure"])
    }

    @Test func aNilRequestCancelsAndShowsThePlaceholder() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()
        let target = RecordingTarget()
        let binder = ImageTargetBinder(target: target, pipeline: h.pipeline)
        let task = try #require(binder.setImage(with: ImageRequest(url: url)))

        binder.setImage(with: nil)

        #expect(task.state == .cancelled)
        #expect(target.shown == ["clear", "clear"])
        await until { h.pipeline.isIdle }
    }

    @Test func afterManyRapidRequestsTheTargetShowsTheLastOne() async throws {
        // Given 40 images, half already in memory, and a reused target
        let h = Harness()
        let urls = (0..<40).map { h.stub("r\($0).img") }
        func request(_ i: Int) -> ImageRequest { ImageRequest(url: urls[i], processors: [h.tag(UInt8(i + 1))]) }
        for i in stride(from: 0, to: 40, by: 2) { _ = try await h.pipeline.image(for: request(i)) }
        let target = RecordingTarget()
        let binder = ImageTargetBinder(target: target, pipeline: h.pipeline)

        // When it is rebound 300 times in a row, mixing hits and misses
        var generator = SystemRandomNumberGenerator()
        var last = 0
        for _ in 0..<300 {
            last = Int.random(in: 0..<40, using: &generator)
            binder.setImage(with: request(last), placeholder: placeholder)
            if Bool.random(using: &generator) { await Task.yield() }
        }
        if let task = binder.currentTask { _ = try await task.response }
        await until { target.shown.last == "image(\(last + 1))" }

        // Then the last request's image is shown and nothing replaces it
        let settled = target.shown.count
        await until { h.pipeline.isIdle }
        #expect(target.shown.count == settled)
        #expect(target.shown.last == "image(\(last + 1))")
    }
}
