import Foundation
@testable import PictorCore
import PictorTestSupport
import Synchronization
import Testing

/// A processed variant on disk (a resized copy) answers to the same HTTP rules as the original
/// it was made from: never kept when the original may not be, never served once the original
/// would have to be asked about again.
@Suite(.timeLimit(.minutes(5)))
struct ProcessedVariantFreshnessTests {
    final class Clock: Sendable {
        private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { current.withLock { $0 } }
        func advance(_ seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    let clock = Clock()
    let url = URL(string: "https://example.test/changing.img")!

    func harness() -> Harness {
        let clock = self.clock
        return Harness(policy: .both, memoryCache: false) {
            $0.httpCachePolicy = .http
            $0.now = { clock.now }
        }
    }

    func serve(_ h: Harness, width: Int, headers: [String: String]) {
        h.network.stub(url, MockDataLoader.Stub(headers: headers, body: TestImageCodec.encode(width: width, height: 20)))
    }

    @Test func aVariantIsNotServedOnceItsOriginalIsStale() async throws {
        let h = harness()
        serve(h, width: 40, headers: ["Cache-Control": "max-age=60"])
        let request = ImageRequest(url: url, processors: [h.tag(1)])
        #expect(try await h.pipeline.image(for: request).image.width == 40)
        // While fresh, the variant answers
        clock.advance(30)
        let fresh = try await h.pipeline.image(for: request)
        #expect(fresh.cacheLayer == .disk)
        #expect(h.network.loadCount == 1)
        // The image at the URL changes; once the original is stale, the variant must not answer
        serve(h, width: 30, headers: ["Cache-Control": "max-age=60"])
        clock.advance(60)
        let stale = try await h.pipeline.image(for: request)
        #expect(stale.image.width == 30)
        #expect(stale.cacheLayer == .network)
        #expect(h.network.loadCount == 2)
        // And the new variant answers again while the new original is fresh
        clock.advance(10)
        #expect(try await h.pipeline.image(for: request).cacheLayer == .disk)
        #expect(h.network.loadCount == 2)
    }

    @Test func aVariantOfANoStoreResponseIsNeverKept() async throws {
        let h = harness()
        serve(h, width: 40, headers: ["Cache-Control": "no-store"])
        let request = ImageRequest(url: url, processors: [h.tag(1)])
        _ = try await h.pipeline.image(for: request)
        #expect(h.disk.keys.isEmpty, "\(h.disk.keys)")
        _ = try await h.pipeline.image(for: request)
        #expect(h.network.loadCount == 2)
    }

    @Test func aVariantOfANoCacheResponseIsRevalidatedEveryTime() async throws {
        let h = harness()
        serve(h, width: 40, headers: ["Cache-Control": "no-cache", "ETag": "\"v1\""])
        let request = ImageRequest(url: url, processors: [h.tag(1)])
        _ = try await h.pipeline.image(for: request)
        h.network.setRevalidating(url)
        let second = try await h.pipeline.image(for: request)
        #expect(second.isRevalidated)
        #expect(h.network.loadCount == 2)
    }

    @Test func withHeadersIgnoredAVariantIsServedWhateverItsOriginalSaid() async throws {
        let clock = self.clock
        let h = Harness(policy: .both, memoryCache: false) {
            $0.httpCachePolicy = .ignoreHTTPHeaders
            $0.now = { clock.now }
        }
        serve(h, width: 40, headers: ["Cache-Control": "max-age=1"])
        let request = ImageRequest(url: url, processors: [h.tag(1)])
        _ = try await h.pipeline.image(for: request)
        clock.advance(3600)
        #expect(try await h.pipeline.image(for: request).cacheLayer == .disk)
        #expect(h.network.loadCount == 1)
    }

    @Test func theStoredVariantIsGivenEncodedWithoutADecodeWhileItMayAnswer() async throws {
        let h = harness()
        serve(h, width: 40, headers: ["Cache-Control": "max-age=60"])
        let request = ImageRequest(url: url, processors: [h.tag(1)])
        #expect(h.pipeline.storedVariant(for: request) == nil)
        let image = try await h.pipeline.image(for: request).image
        let decodes = h.decoder.decodeCount
        let variant = try #require(h.pipeline.storedVariant(for: request))
        #expect(h.decoder.decodeCount == decodes, "no decode")
        #expect(variant.width == image.width && variant.height == image.height)
        #expect(variant.quality == h.pipeline.configuration.processedVariantQuality)
        #expect(variant.matches(format: variant.format, quality: h.pipeline.configuration.processedVariantQuality))
        #expect(!variant.matches(format: variant.format, quality: 1) || variant.format == .png || variant.format == .gif)
        #expect(h.pipeline.storedVariant(for: ImageRequest(url: url)) == nil, "an unprocessed request has no variant")
        clock.advance(61)
        #expect(h.pipeline.storedVariant(for: request) == nil, "not once the original is stale")
    }
}
