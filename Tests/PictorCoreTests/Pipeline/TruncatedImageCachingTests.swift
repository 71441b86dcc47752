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
        #expect(!h.disk.keys.contains(h.pipeline.variantCacheKey(for: request)))
    }
}

/// Bytes fetched without decoding (`data(for:)`, `.skipDecode`, the prefetcher's disk-only
/// warming) are never cached when they visibly end before the image does: a server that sends a
/// cut file with a matching `Content-Length` would otherwise leave it on disk and in the fleet.
@Suite(.timeLimit(.minutes(5)))
struct TruncatedDataCachingTests {
    /// A JPEG cut inside its entropy-coded data (SOS and no EOI after it).
    static let cutJPEG = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        + [0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 0x3F, 0] + [UInt8](repeating: 0x55, count: 200))
    /// The same JPEG, closed with its EOI marker.
    static let wholeJPEG = cutJPEG + Data([0xFF, 0xD9])
    /// A GIF whose image data runs past the end of the file.
    static let cutGIF = Data(Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0] + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0] + [2, 10, 1, 2])

    func harness(allowsTruncatedData: Bool = false) -> Harness {
        Harness { $0.decodingOptions.allowsTruncatedData = allowsTruncatedData }
    }

    @Test(arguments: [("cut.jpg", cutJPEG), ("cut.gif", cutGIF)])
    func cutBytesAreNotCachedByDataRequests(name: String, bytes: Data) async throws {
        let h = harness()
        let url = URL(string: "https://example.test/\(name)")!
        h.network.stub(url, data: bytes)
        await #expect(throws: ImagePipeline.Error.self) { try await h.pipeline.data(for: ImageRequest(url: url)) }
        #expect(h.disk.keys.isEmpty)
        var skip = ImageRequest(url: url)
        skip.options.insert(.skipDecode)
        do {
            _ = try await h.pipeline.image(for: skip)
            Issue.record("a cut \(name) was delivered as complete")
        } catch {
            #expect(error.kind == .decoding, "\(error)")
            #expect(error.decodingError == .truncated(name.hasSuffix("jpg") ? .jpeg : .gif), "\(error)")
        }
        #expect(h.disk.keys.isEmpty)
    }

    @Test func wholeBytesAreCachedByDataRequests() async throws {
        let h = harness()
        let url = URL(string: "https://example.test/whole.jpg")!
        h.network.stub(url, data: Self.wholeJPEG)
        #expect(try await h.pipeline.data(for: ImageRequest(url: url)).data == Self.wholeJPEG)
        #expect(h.disk.keys.count == 1)
    }

    @Test func cutBytesAreDeliveredWhenTruncatedDataIsAllowed() async throws {
        let h = harness(allowsTruncatedData: true)
        let url = URL(string: "https://example.test/cut.jpg")!
        h.network.stub(url, data: Self.cutJPEG)
        #expect(try await h.pipeline.data(for: ImageRequest(url: url)).data == Self.cutJPEG)
    }
}
