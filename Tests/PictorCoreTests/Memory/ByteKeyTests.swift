import Foundation
@testable import PictorCore
import PictorTestSupport
import Testing

/// Keys are bytes: two spellings that Swift's `String` calls equal (canonically equivalent
/// Unicode) name two things, and never share a memory entry or a job.
@Suite(.timeLimit(.minutes(5)))
struct ByteKeyTests {
    /// "café" with "é" as one scalar (U+00E9) and as "e" + U+0301.
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test func theTwoSpellingsAreEqualStringsOfDifferentBytes() {
        #expect(Self.composed == Self.decomposed)
        #expect(Array(Self.composed.utf8) != Array(Self.decomposed.utf8))
    }

    @Test func imageCacheKeysCompareAndHashBytes() {
        #expect(ImageCacheKey(Self.composed) != ImageCacheKey(Self.decomposed))
        #expect(Set([ImageCacheKey(Self.composed), ImageCacheKey(Self.decomposed)]).count == 2)
        #expect(ImageCacheKey(Self.composed) == ImageCacheKey("caf" + "\u{E9}"))
        #expect(ImageCacheKey(Self.composed).hashValue == ImageCacheKey("caf" + "\u{E9}").hashValue)
    }

    @Test func theMemoryCacheNeverServesOneSpellingForTheOther() {
        let cache = ImageCache(configuration: .init(costLimit: 1_000_000))
        cache.storeImage(ImageCacheTests.image(width: 2, height: 2), for: ImageCacheKey(Self.composed))
        #expect(cache.image(for: ImageCacheKey(Self.decomposed)) == nil)
        #expect(cache.image(for: ImageCacheKey(Self.composed)) != nil)
    }

    @Test func stageKeysCompareBytes() {
        let a = FetchKey(dataKey: Self.composed, mode: .normal), b = FetchKey(dataKey: Self.decomposed, mode: .normal)
        #expect(a != b)
        #expect(Set([a, b]).count == 2)
        #expect(a == FetchKey(dataKey: "caf" + "\u{E9}", mode: .normal))
        let decode = DecodeKey(fetch: a, thumbnail: nil, storesOriginal: true)
        #expect(ProcessKey(decode: decode, processors: [Self.composed]) != ProcessKey(decode: decode, processors: [Self.decomposed]))
        #expect(ProcessKey(decode: decode, processors: ["ab", "c"]) != ProcessKey(decode: decode, processors: ["a", "bc"]))
        #expect(ProcessKey(decode: decode, processors: [Self.composed]) == ProcessKey(decode: decode, processors: ["caf" + "\u{E9}"]))
        let request = EncodedResultRequest(imageRequest: ImageRequest(url: URL(string: "https://example.test/a")!), quality: 80)
        #expect(EncodedResultKey(Self.composed, request) != EncodedResultKey(Self.decomposed, request))
        #expect(EncodedResultKey(Self.composed, request) == EncodedResultKey("caf" + "\u{E9}", request))
    }

    /// Tags its output like ``TaggingProcessor``, under any identifier.
    struct NamedProcessor: ImageProcessing {
        let identifier: String
        let tag: UInt8
        func process(_ image: Image, context: ImageProcessingContext) throws -> Image {
            try TaggingProcessor(tag: tag).process(image, context: context)
        }
    }

    @Test func equivalentProcessorIdentifiersNeverShareAnImage() async throws {
        let h = Harness()
        let url = h.stub()
        // One after the other (the memory cache) …
        let first = try await h.pipeline.image(for: ImageRequest(url: url, processors: [NamedProcessor(identifier: Self.composed, tag: 1)]))
        let second = try await h.pipeline.image(for: ImageRequest(url: url, processors: [NamedProcessor(identifier: Self.decomposed, tag: 2)]))
        #expect(first.image.frames[0].pixels.first == 1)
        #expect(second.image.frames[0].pixels.first == 2)
        // … and at once (the shared processing and load jobs)
        let h2 = Harness()
        h2.network.gate.close()
        let tasks = [(Self.composed, UInt8(3)), (Self.decomposed, UInt8(4))].map { id, tag in
            h2.pipeline.imageTask(for: ImageRequest(url: h2.stub(), processors: [NamedProcessor(identifier: id, tag: tag)]))
        }
        await h2.waitForCallers(2)
        h2.network.gate.open()
        let tags = try await tasks.asyncMap { try await $0.image.frames[0].pixels.first }
        #expect(tags == [3, 4])
    }

    @Test func equivalentCacheKeysNeverShareAFetch() async throws {
        // Given a cache-key hook that names two URLs by the two spellings
        let h = Harness { configuration in
            configuration.cacheKey = { $0.url?.lastPathComponent == "a.img" ? ByteKeyTests.composed : ByteKeyTests.decomposed }
        }
        let a = h.stub("a.img", width: 10), b = h.stub("b.img", width: 20)
        h.network.gate.close()
        let tasks = [a, b].map { h.pipeline.imageTask(for: ImageRequest(url: $0)) }
        await h.waitForCallers(2)
        h.network.gate.open()
        let widths = try await tasks.asyncMap { try await $0.image.width }
        #expect(widths == [10, 20])
        #expect(h.network.loadCount == 2)
        // And the memory cache keeps them apart afterwards
        #expect(try await h.pipeline.image(for: ImageRequest(url: b)).image.width == 20)
    }
}
