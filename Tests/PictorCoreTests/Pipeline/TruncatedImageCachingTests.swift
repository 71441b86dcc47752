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

/// An animation cut short, by default: its complete frames are delivered (the image says it is
/// truncated) and neither it nor its bytes are kept in any tier: memory, disk or the fleet's.
@Suite(.timeLimit(.minutes(5)))
struct TruncatedAnimationPipelineTests {
    /// One 1×1 GIF frame: its descriptor, the LZW minimum code size and one data sub-block.
    static let frame: [UInt8] = [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x4C, 0x01, 0]
    static let header: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0]
    /// Two frames, the second cut inside its descriptor.
    static let cutAnimation = Data(header + frame + frame.prefix(5))
    /// Two complete frames, without the trailer byte.
    static let noTrailer = Data(header + frame + frame)

    /// Stands for a decoder: a 1×1 image that is truncated when the GIF's structure says so.
    struct StructureDecoder: ImageDecoding {
        func decode(_ data: Data, options: ImageDecodingOptions) throws -> Image {
            let cut = FileStructure.isTruncated(data, format: .gif)
            guard !cut || options.truncatedData.accepts(cut: data, format: .gif) else { throw ImageDecodingError.truncated(.gif) }
            var image = Image(width: 1, height: 1, layout: .rgba, pixels: Data(count: 4))
            image.isTruncated = cut
            return image
        }
    }

    func harness(_ fleet: InMemorySharedCache, strict: Bool = false) -> Harness {
        Harness(policy: .both) {
            $0.decoder = StructureDecoder()
            $0.sharedCache = fleet
            if strict { $0.decodingOptions.truncatedData = .fail }
        }
    }

    @Test func aCutAnimationIsDeliveredTruncatedAndKeptNowhere() async throws {
        let fleet = InMemorySharedCache()
        let h = harness(fleet)
        let url = URL(string: "https://example.test/cut.gif")!
        h.network.stub(url, data: Self.cutAnimation)
        for _ in 0..<2 {
            let response = try await h.pipeline.image(for: ImageRequest(url: url, processors: [h.tag(1)]))
            #expect(response.image.isTruncated)
            #expect(response.cacheLayer == .network)
        }
        #expect(h.network.loadCount == 2, "nothing kept, so the second request downloads again")
        #expect(h.memory.count == 0)
        #expect(h.disk.keys.isEmpty)
        #expect(fleet.storedEntry(for: url.absoluteString) == nil)
        #expect(fleet.count(.store) == 0)
        // Undecoded, the same rule: delivered, not kept.
        #expect(try await h.pipeline.data(for: ImageRequest(url: url)).data == Self.cutAnimation)
        #expect(h.disk.keys.isEmpty)
        #expect(fleet.count(.store) == 0)
    }

    @Test func strictDecodingFailsOnACutAnimation() async throws {
        let fleet = InMemorySharedCache()
        let h = harness(fleet, strict: true)
        let url = URL(string: "https://example.test/cut.gif")!
        h.network.stub(url, data: Self.cutAnimation)
        do {
            _ = try await h.pipeline.image(for: ImageRequest(url: url))
            Issue.record("a cut animation was delivered under strict decoding")
        } catch {
            #expect(error.decodingError == .truncated(.gif), "\(error)")
        }
        await #expect(throws: ImagePipeline.Error.self) { try await h.pipeline.data(for: ImageRequest(url: url)) }
        #expect(h.disk.keys.isEmpty)
        #expect(fleet.count(.store) == 0)
    }

    @Test func aGIFLackingOnlyItsTrailerIsWholeAndCached() async throws {
        let fleet = InMemorySharedCache()
        let h = harness(fleet)
        let url = URL(string: "https://example.test/no-trailer.gif")!
        h.network.stub(url, data: Self.noTrailer)
        let response = try await h.pipeline.image(for: ImageRequest(url: url))
        #expect(!response.image.isTruncated)
        #expect(h.disk.keys.contains(url.absoluteString))
        #expect(fleet.count(.store) == 1)
        #expect(try await h.pipeline.image(for: ImageRequest(url: url)).cacheLayer == .memory)
    }

    @Test func theGIFScanTellsACutFromAMissingTrailer() {
        let whole = Self.noTrailer + Data([0x3B])
        func scan(_ data: Data) -> AnimationStructure { AnimationStructure.scan(data, format: .gif)! }
        #expect(!scan(whole).isTruncated && scan(whole).repaired == nil && scan(whole).completeFrames == 2)
        #expect(!scan(Self.noTrailer).isTruncated && scan(Self.noTrailer).repaired == whole)
        // Cut inside the second frame's descriptor, inside its LZW data, or after the first
        // frame's graphic control extension for the second: one complete frame.
        let gce: [UInt8] = [0x21, 0xF9, 4, 0, 10, 0, 0, 0]
        let oneFrame = Data(Self.header + Self.frame + [0x3B])
        for cut in [Self.cutAnimation, Data(Self.header + Self.frame + Self.frame.prefix(13)), Data(Self.header + Self.frame + gce)] {
            #expect(scan(cut).isTruncated && scan(cut).completeFrames == 1 && scan(cut).repaired == oneFrame, "\(Array(cut))")
            #expect(ImageDecodingOptions.TruncatedData.completeFrames.accepts(cut: cut, format: .gif))
            #expect(!ImageDecodingOptions.TruncatedData.fail.accepts(cut: cut, format: .gif))
        }
        // Cut inside its only frame: nothing complete to show.
        let still = Data(Self.header + Self.frame.prefix(13))
        #expect(scan(still).isTruncated && scan(still).repaired == nil)
        #expect(!ImageDecodingOptions.TruncatedData.completeFrames.accepts(cut: still, format: .gif))
        #expect(ImageDecodingOptions.TruncatedData.anyPart.accepts(cut: still, format: .gif))
    }
}
