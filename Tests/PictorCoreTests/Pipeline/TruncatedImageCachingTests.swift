import Foundation
@testable import PictorCore
import PictorTestSupport
import Testing

/// An image decoded from truncated data (allowed by the decoding options) is delivered, but
/// never kept in the memory cache nor written as a processed variant.
@Suite(.timeLimit(.minutes(5)))
struct TruncatedImageCachingTests {
    /// The counting decoder, with every image marked truncated.
    struct TruncatingDecoder: ImageDecoding {
        let inner: CountingImageDecoder
        func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
            var image = try inner.decode(data, options: options)
            image.isTruncated = true
            return image
        }
    }

    @Test func aTruncatedImageIsDeliveredButNotCached() async throws {
        let inner = CountingImageDecoder()
        let h = Harness(policy: .both) {
            $0.decoder = TruncatingDecoder(inner: inner)
            $0.decodingOptions.allowsTruncatedData = true
        }
        let url = h.stub()
        let request = ImageRequest(url: url, processors: [h.tag(1)])
        let first = try await h.pipeline.image(for: request)
        #expect(first.image.isTruncated)
        let second = try await h.pipeline.image(for: request)
        #expect(second.image.isTruncated)
        #expect(inner.decodeCount == 2)
        #expect(h.memory.count == 0)
        #expect(!h.disk.keys.contains(h.pipeline.imageCacheKey(for: request).rawValue))
    }
}
