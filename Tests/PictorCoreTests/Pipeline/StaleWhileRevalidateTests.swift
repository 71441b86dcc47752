import Foundation
@testable import PictorCore
import PictorTestSupport
import Testing

/// Stale bytes answered at once and revalidated in the background by the same shared fetch
/// (`stale-while-revalidate`, RFC 5861, and the `returnCachedThenRevalidate` policy), with the
/// fake loader and a settable clock: the answer comes while the network is held at a gate.
@Suite(.timeLimit(.minutes(1)))
struct StaleWhileRevalidateTests {
    let clock = TestClock()

    func harness(_ policy: ImagePipeline.HTTPCachePolicy = .http) -> Harness {
        let clock = clock
        return Harness { configuration in
            configuration.httpCachePolicy = policy
            configuration.now = { clock.now }
        }
    }

    /// Stubs `url` with a `width`-pixel-wide test image, `Cache-Control` and `ETag`.
    func stub(_ h: Harness, _ url: URL, width: Int, cacheControl: String, etag: String) {
        h.network.stub(url, MockDataLoader.Stub(
            headers: ["Cache-Control": cacheControl, "ETag": etag], body: TestImageCodec.encode(width: width, height: 8)))
    }

    /// The events of `task` until its stream ends.
    func events(_ task: ImageTask) async -> [ImageTask.Event] {
        var events: [ImageTask.Event] = []
        for await event in task.events { events.append(event) }
        return events
    }

    @Test func withinTheWindowTheStaleEntryAnswersAtOnceAndA304RefreshesIt() async throws {
        let h = harness()
        let url = URL(string: "https://example.test/swr.img")!
        stub(h, url, width: 8, cacheControl: "max-age=60, stale-while-revalidate=600", etag: "\"v1\"")
        _ = try await h.pipeline.image(for: url)
        h.memory.removeAll()
        clock.advance(120)
        h.network.setRevalidating(url)
        // The network is held: the answer cannot have waited for it.
        let gate = h.network.gate(for: url)
        let response = try await h.pipeline.image(for: url)
        #expect(response.cacheLayer == .disk)
        #expect(response.isRevalidatingInBackground)
        #expect(response.image.width == 8)
        gate.open()
        await h.pipeline.waitForBackgroundRevalidations()
        #expect(h.network.loadCount(for: url) == 2)
        #expect(h.network.loads.last?.isConditional == true, "revalidated with the entry's validators")
        let refreshed = try #require(h.disk.entry(for: url.absoluteString)?.metadata.expiresAt)
        #expect(refreshed > clock.now, "the 304 refreshed the entry's freshness")
        // Fresh again: answered with no revalidation.
        h.memory.removeAll()
        let third = try await h.pipeline.image(for: url)
        #expect(third.cacheLayer == .disk && !third.isRevalidatingInBackground)
        #expect(h.network.loadCount(for: url) == 2)
    }

    @Test func pastTheWindowTheEntryIsRevalidatedBeforeItAnswers() async throws {
        let h = harness()
        let url = URL(string: "https://example.test/past.img")!
        stub(h, url, width: 8, cacheControl: "max-age=60, stale-while-revalidate=30", etag: "\"v1\"")
        _ = try await h.pipeline.image(for: url)
        h.memory.removeAll()
        clock.advance(120)
        h.network.setRevalidating(url)
        let response = try await h.pipeline.image(for: url)
        #expect(response.isRevalidated && !response.isRevalidatingInBackground)
    }

    /// Under the policy any stale entry answers; the new image comes as the task's `updated`
    /// event, after `finished` with the stale one, and replaces the cached image and bytes.
    @Test func thePolicyAnswersWithAnyStaleEntryAndAnnouncesTheNewImage() async throws {
        let h = harness(.returnCachedThenRevalidate)
        let url = URL(string: "https://example.test/policy.img")!
        stub(h, url, width: 8, cacheControl: "max-age=60, must-revalidate", etag: "\"v1\"")
        _ = try await h.pipeline.image(for: url)
        h.memory.removeAll()
        clock.advance(3600)
        stub(h, url, width: 16, cacheControl: "max-age=60", etag: "\"v2\"")
        let gate = h.network.gate(for: url)
        let task = h.pipeline.imageTask(for: ImageRequest(url: url))
        let stream = task.events
        let response = try await task.response
        #expect(response.image.width == 8 && response.isRevalidatingInBackground)
        gate.open()
        var seen: [ImageTask.Event] = []
        for await event in stream { seen.append(event) }
        guard seen.count == 2, case .finished(.success(let first)) = seen[0], case .updated(let updated) = seen[1] else {
            Issue.record("expected finished then updated, got \(seen)"); return
        }
        #expect(first.image.width == 8)
        #expect(updated.image.width == 16 && updated.cacheLayer == .network && !updated.isRevalidatingInBackground)
        #expect((try await task.response).image.width == 8, "the task's response stays the one delivered first")
        #expect(h.pipeline.cachedImage(for: ImageRequest(url: url))?.width == 16, "the new image replaced the memory entry")
        #expect(h.disk.entry(for: url.absoluteString)?.metadata.etag == "\"v2\"")
        #expect(h.network.loadCount(for: url) == 2)
        #expect(h.network.loads.last?.isConditional == true)
    }

    /// Stale answers for one URL asked for while its revalidation runs share it: one request.
    @Test func concurrentStaleAnswersShareOneRevalidation() async throws {
        let h = harness(.returnCachedThenRevalidate)
        let url = URL(string: "https://example.test/shared.img")!
        stub(h, url, width: 8, cacheControl: "max-age=60", etag: "\"v1\"")
        _ = try await h.pipeline.image(for: url)
        h.memory.removeAll()
        clock.advance(120)
        stub(h, url, width: 16, cacheControl: "max-age=60", etag: "\"v2\"")
        let gate = h.network.gate(for: url)
        let tasks = [
            h.pipeline.imageTask(for: ImageRequest(url: url)),
            h.pipeline.imageTask(for: ImageRequest(url: url, thumbnail: ThumbnailOptions(width: 4))),
        ]
        let streams = tasks.map(\.events)
        for task in tasks { #expect(try await task.response.isRevalidatingInBackground) }
        let data = try await h.pipeline.data(for: ImageRequest(url: url, options: .disableMemoryCacheReads))
        #expect(data.cacheLayer == .disk)
        gate.open()
        for stream in streams {
            var updated = 0
            for await event in stream { if case .updated = event { updated += 1 } }
            #expect(updated == 1)
        }
        await h.pipeline.waitForBackgroundRevalidations()
        #expect(h.network.loadCount(for: url) == 2, "one download, then one revalidation for every stale answer")
    }

    /// A 200 with the bytes already held, or a 304, changes nothing: no `updated` event.
    @Test(arguments: [false, true])
    func anUnchangedImageSendsNoUpdate(answers304: Bool) async throws {
        let h = harness(.returnCachedThenRevalidate)
        let url = URL(string: "https://example.test/same-\(answers304).img")!
        stub(h, url, width: 8, cacheControl: "max-age=60", etag: "\"v1\"")
        _ = try await h.pipeline.image(for: url)
        h.memory.removeAll()
        clock.advance(120)
        if answers304 { h.network.setRevalidating(url) }
        let task = h.pipeline.imageTask(for: ImageRequest(url: url))
        let seen = await events(task)
        #expect(seen.count == 1)
        guard case .finished(.success(let response)) = seen.first else { Issue.record("expected finished"); return }
        #expect(response.isRevalidatingInBackground)
        #expect(h.network.loadCount(for: url) == 2)
    }

    /// A cache-only request serves the stale entry and never revalidates.
    @Test func aCacheOnlyRequestNeverRevalidates() async throws {
        let h = harness(.returnCachedThenRevalidate)
        let url = URL(string: "https://example.test/offline.img")!
        stub(h, url, width: 8, cacheControl: "max-age=60", etag: "\"v1\"")
        _ = try await h.pipeline.image(for: url)
        h.memory.removeAll()
        clock.advance(120)
        let response = try await h.pipeline.image(for: ImageRequest(url: url, options: .returnCacheDataDontLoad))
        #expect(response.cacheLayer == .disk && !response.isRevalidatingInBackground)
        await h.pipeline.waitForBackgroundRevalidations()
        #expect(h.network.loadCount(for: url) == 1)
    }
}
