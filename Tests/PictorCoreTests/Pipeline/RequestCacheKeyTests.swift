import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import PictorTestSupport
import Synchronization
import Testing

/// A request's cache keys are computed once per pipeline and kept with the request, so a memory
/// hit does not rebuild them; any change to what they depend on computes them again.
@Suite(.timeLimit(.minutes(5)))
struct RequestCacheKeyTests {
    /// A pipeline whose cache-key hook counts its calls and prefixes `tag`.
    final class CountingHook: Sendable {
        let calls = Mutex(0)
        func pipeline(tag: String) -> ImagePipeline {
            let h = Harness { configuration in
                configuration.cacheKey = { request in
                    self.calls.withLock { $0 += 1 }
                    return tag + (request.url?.absoluteString ?? "") + ((request.userInfo["v"] as? String) ?? "")
                }
            }
            return h.pipeline
        }
        var count: Int { calls.withLock { $0 } }
    }

    let url = URL(string: "https://example.test/a.jpg")!

    @Test func keysAreComputedOncePerRequestAndPipeline() {
        let hook = CountingHook()
        let pipeline = hook.pipeline(tag: "A:")
        let request = ImageRequest(url: url, thumbnail: ThumbnailOptions(width: 64))
        for _ in 0..<100 { _ = pipeline.cachedImage(for: request) }
        let key = pipeline.imageCacheKey(for: request)
        #expect(pipeline.dataCacheKey(for: request) == "A:" + url.absoluteString)
        #expect(hook.count == 1)
        // A copy shares them
        let copy = request
        #expect(pipeline.imageCacheKey(for: copy) == key)
        #expect(hook.count == 1)
    }

    @Test func anotherPipelineComputesItsOwnKeys() {
        let hook = CountingHook()
        let a = hook.pipeline(tag: "A:"), b = hook.pipeline(tag: "B:")
        let request = ImageRequest(url: url)
        #expect(a.dataCacheKey(for: request) == "A:" + url.absoluteString)
        #expect(b.dataCacheKey(for: request) == "B:" + url.absoluteString)
        #expect(a.dataCacheKey(for: request) == "A:" + url.absoluteString)
    }

    @Test func changingWhatTheKeysDependOnComputesThemAgain() {
        let hook = CountingHook()
        let pipeline = hook.pipeline(tag: "")
        var request = ImageRequest(url: url)
        let plain = pipeline.imageCacheKey(for: request)
        let original = request

        request.thumbnail = ThumbnailOptions(width: 32)
        let thumbnail = pipeline.imageCacheKey(for: request)
        #expect(thumbnail != plain)

        request.processors = [TaggingProcessor(tag: 1, log: ProcessorLog())]
        let processed = pipeline.imageCacheKey(for: request)
        #expect(processed != thumbnail)

        request.urlRequest = URLRequest(url: URL(string: "https://example.test/b.jpg")!)
        #expect(pipeline.dataCacheKey(for: request) == "https://example.test/b.jpg")

        request.userInfo["v"] = "2"
        #expect(pipeline.dataCacheKey(for: request) == "https://example.test/b.jpg2")

        // The copy taken before the changes keeps its own keys
        #expect(pipeline.imageCacheKey(for: original) == plain)
        #expect(pipeline.dataCacheKey(for: original) == url.absoluteString)
    }

    @Test func changingWhatTheKeysDoNotDependOnKeepsThemAndLeavesTheOriginalAlone() {
        let hook = CountingHook()
        let pipeline = hook.pipeline(tag: "")
        let request = ImageRequest(url: url, thumbnail: ThumbnailOptions(width: 64))
        let key = pipeline.imageCacheKey(for: request)
        var copy = request
        copy.priority = .high
        copy.options = [.disableDiskCacheWrites]
        #expect(pipeline.imageCacheKey(for: copy) == key)
        #expect(hook.count == 1)
        #expect(request.priority == .normal && request.options.isEmpty)
        #expect(copy.priority == .high && copy.options == [.disableDiskCacheWrites])
        copy.thumbnail = nil
        #expect(request.thumbnail == ThumbnailOptions(width: 64))
        #expect(pipeline.imageCacheKey(for: copy) != key)
        #expect(pipeline.imageCacheKey(for: request) == key)
    }

    @Test func pipelinesAskingAtOnceEachGetTheirOwnKeys() async {
        let hook = CountingHook()
        let pipelines = (0..<4).map { hook.pipeline(tag: "P\($0):") }, url = url
        for _ in 0..<20 {
            let request = ImageRequest(url: url)
            let wrong = await withTaskGroup(of: Int.self) { group in
                for (n, pipeline) in pipelines.enumerated() {
                    group.addTask {
                        var wrong = 0
                        for _ in 0..<50 where pipeline.dataCacheKey(for: request) != "P\(n):" + url.absoluteString {
                            wrong += 1
                        }
                        for _ in 0..<50 where pipeline.cachedImage(for: request) != nil { wrong += 1 }
                        return wrong
                    }
                }
                return await group.reduce(0, +)
            }
            #expect(wrong == 0)
        }
    }

    @Test func aMemoryHitUsesTheKeptKeys() async throws {
        let h = Harness()
        let url = h.stub()
        let request = ImageRequest(url: url, thumbnail: ThumbnailOptions(width: 16))
        let first = try await h.pipeline.image(for: request)
        #expect(first.cacheLayer == .network)
        #expect(h.pipeline.cachedImage(for: request) != nil)
        let second = try await h.pipeline.image(for: request)
        #expect(second.cacheLayer == .memory)
        var changed = request
        changed.thumbnail = ThumbnailOptions(width: 8)
        #expect(h.pipeline.cachedImage(for: changed) == nil)
    }
}
