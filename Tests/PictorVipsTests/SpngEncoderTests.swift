import Foundation
import PictorCore
@testable import PictorVips
import Testing

/// The libspng encoding path writes PNGs that decode to exactly the pixels encoded, in the
/// colour type of the image's layout, with no metadata: synthetic images of every layout and odd
/// sizes, and the corpus' still images as Pictor decodes them, give back the same pixels
/// decoded by libvips, as libvips' own `pngsave` files do.
@Suite("libspng encoder")
struct SpngEncoderTests {
    static let fast = VipsEncoder(), vips = VipsEncoder(usesSpng: false)
    static let decoder = VipsDecoder()

    /// The chunk types of a PNG file, in order.
    static func chunks(_ png: Data) -> [String] {
        let bytes = [UInt8](png)
        var names: [String] = [], offset = 8
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            names.append(String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self))
            offset += 12 + length
        }
        return names
    }

    /// Encodes `image` both ways; both decode to `image`'s own pixels and layout.
    static func compare(_ image: Image, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let ours = try #require(SpngEncoder.encode(image, compression: 6), "\(label): taken", sourceLocation: sourceLocation)
        #expect(try fast.encode(image, as: .png) == ours, "\(label): the encoder takes the fast path", sourceLocation: sourceLocation)
        #expect(Set(chunks(ours)).isSubset(of: ["IHDR", "IDAT", "IEND"]), "\(label): \(chunks(ours))", sourceLocation: sourceLocation)
        let theirs = try vips.encode(image, as: .png)
        for (file, who) in [(ours, "libspng"), (theirs, "libvips")] {
            let decoded = try decoder.decode(file, options: .init())
            #expect(decoded.width == image.width && decoded.height == image.height && decoded.layout == image.layout,
                    "\(label) via \(who): \(decoded.width)×\(decoded.height) \(decoded.layout)", sourceLocation: sourceLocation)
            #expect(decoded.pixels == image.pixels, "\(label) via \(who): pixels differ", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: SyntheticImage.allCases)
    func syntheticRoundTripsExactly(_ source: SyntheticImage) throws {
        try Self.compare(source.image, source.rawValue)
    }

    /// The corpus' still images as Pictor decodes them, every layout Pictor decodes to.
    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"), arguments: DecoderTestFixtures.stillCorpusPaths)
    func corpusRoundTripsExactly(_ path: String) throws {
        try Self.compare(try DecoderTestFixtures.decodedAsPrefetchKeepsIt(path), path)
    }

    /// The zlib level is passed: level 0 stores, level 9 compresses; levels out of range are
    /// clamped by the encoder.
    @Test func compressionLevelIsApplied() throws {
        let image = TestImages.gradient(width: 256, height: 192)
        let stored = try VipsEncoder(pngCompression: 0).encode(image, as: .png)
        let smallest = try VipsEncoder(pngCompression: 9).encode(image, as: .png)
        #expect(stored.count > image.pixels.count, "level 0 stores every row")
        #expect(smallest.count < stored.count / 4)
        #expect(try VipsEncoder(pngCompression: 42).encode(image, as: .png) == smallest)
        #expect(try VipsEncoder(pngCompression: -1).encode(image, as: .png) == stored)
    }

    /// An animation is written as its first frame, as libvips writes it.
    @Test func anAnimationIsWrittenAsItsFirstFrame() throws {
        let a = TestImages.gradient(width: 20, height: 10), b = TestImages.solid(width: 20, height: 10, layout: .rgb, [9, 99, 199])
        let animation = Image(width: 20, height: 10, layout: .rgb, frames: [a.frames[0], b.frames[0]], loopCount: 0)
        let decoded = try Self.decoder.decode(try Self.fast.encode(animation, as: .png), options: .init())
        #expect(decoded.frames.count == 1)
        #expect(decoded.pixels == a.pixels)
    }
}
