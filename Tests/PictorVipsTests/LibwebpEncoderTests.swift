import Foundation
import PictorCore
@testable import PictorVips
import Testing

/// The libwebp encoding path writes libvips 8.14's `webpsave` bitstream byte for byte, without
/// the EXIF chunk libvips 8.14.1 adds despite `strip` (``WebPChunks/withoutEXIF(_:)``): synthetic
/// images of every layout and odd sizes and the corpus' still images, lossy at several qualities
/// and lossless, give the same bytes and so the same pixels once decoded (by libvips, for both).
@Suite("libwebp encoder")
struct LibwebpEncoderTests {
    static let fast = VipsEncoder(), vips = VipsEncoder(usesLibwebp: false)
    static let fastLossless = VipsEncoder(webpLossless: true), vipsLossless = VipsEncoder(webpLossless: true, usesLibwebp: false)
    static let decoder = VipsDecoder()

    /// One encoder setting: a quality, lossy or lossless.
    struct Setting: Sendable, CustomTestStringConvertible {
        var quality: Int
        var lossless: Bool
        var testDescription: String { lossless ? "lossless \(quality)" : "q\(quality)" }
    }

    static let settings = [1, 50, 75, 90, 100].map { Setting(quality: $0, lossless: false) }
        + [Setting(quality: 80, lossless: true), Setting(quality: 100, lossless: true)]
    static let corpusSettings = [Setting(quality: 50, lossless: false), Setting(quality: 90, lossless: false),
                                 Setting(quality: 80, lossless: true)]

    /// Encodes `image` both ways, checks the bytes and the decoded pixels; returns our file.
    @discardableResult
    static func compare(_ image: Image, _ setting: Setting, _ label: String,
                        sourceLocation: SourceLocation = #_sourceLocation) throws -> Data {
        let (ours, theirs) = setting.lossless
            ? (try fastLossless.encode(image, as: .webp, quality: setting.quality),
               try vipsLossless.encode(image, as: .webp, quality: setting.quality))
            : (try fast.encode(image, as: .webp, quality: setting.quality), try vips.encode(image, as: .webp, quality: setting.quality))
        #expect(!WebPChunks.names(ours).contains("EXIF"), "\(label): no metadata", sourceLocation: sourceLocation)
        #expect(ours == WebPChunks.withoutEXIF(theirs),
                "\(label) \(setting.testDescription): \(WebPChunks.names(ours)) \(ours.count) B vs libvips \(WebPChunks.names(theirs)) \(theirs.count) B",
                sourceLocation: sourceLocation)
        let a = try decoder.decode(ours, options: .init()), b = try decoder.decode(theirs, options: .init())
        #expect(a.width == image.width && a.height == image.height && a.layout == b.layout, "\(label)", sourceLocation: sourceLocation)
        #expect(a.pixels == b.pixels, "\(label) \(setting.testDescription): decoded pixels differ from libvips' webpsave",
                sourceLocation: sourceLocation)
        return ours
    }

    @Test(arguments: SyntheticImage.allCases, settings)
    func syntheticMatchesLibvips(_ source: SyntheticImage, _ setting: Setting) throws {
        let image = source.image
        #expect(LibwebpEncoder.encode(image, quality: Int32(setting.quality), lossless: setting.lossless) != nil, "taken")
        let ours = try Self.compare(image, setting, source.rawValue)
        let decoded = try Self.decoder.decode(ours, options: .init())
        // Grey is written as RGB, as libvips writes it; alpha is kept unless it is all opaque
        // (libwebp then writes no alpha, for libvips too).
        let translucent = image.hasAlpha && image.pixels.enumerated().contains { $0.offset % image.bands == image.bands - 1 && $0.element < 255 }
        #expect(decoded.layout == (translucent ? .rgba : .rgb))
        if setting.lossless, !image.hasAlpha, image.layout == .rgb { #expect(decoded.pixels == image.pixels, "lossless is exact") }
    }

    /// The corpus' still images as Pictor decodes them, each layout Pictor decodes to.
    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"), arguments: DecoderTestFixtures.stillCorpusPaths)
    func corpusMatchesLibvips(_ path: String) throws {
        let image = try DecoderTestFixtures.decodedAsPrefetchKeepsIt(path)
        for setting in Self.corpusSettings { try Self.compare(image, setting, path) }
    }

    /// The source's EXIF orientation is applied by the decoder and never written again: our file
    /// has no EXIF chunk; libvips 8.14.1's has one saying orientation 1, so both decode upright.
    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"))
    func orientationIsAppliedNotWritten() throws {
        let image = try ImageDecoderRegistry.vips.decode(try Corpus.data("exif-orientation/Portrait_6.jpg"),
                                             options: .init(thumbnail: ThumbnailOptions(width: 256, height: 256)))
        #expect(image.height > image.width, "decoded upright")
        let ours = try Self.compare(image, Setting(quality: 90, lossless: false), "Portrait_6")
        #expect(WebPChunks.names(ours) == ["VP8 "])
        let theirs = try Self.vips.encode(image, as: .webp, quality: 90)
        if ["8.14.0", "8.14.1"].contains(VipsRuntime.version ?? "") {
            #expect(WebPChunks.names(theirs).contains("EXIF"), "libvips 8.14.1 writes EXIF despite strip (8.14.2 stops)")
        }
        for file in [ours, theirs] {
            let decoded = try ImageDecoderRegistry.vips.decode(file, options: .init())
            #expect(decoded.width == image.width && decoded.height == image.height, "not rotated again")
        }
    }

    /// Every effort writes libvips' own bitstream for that effort (its `webpsave` `effort` is
    /// libwebp's method), lossy and lossless; and the effort is really passed: the fastest and the
    /// most thorough give different files, the fastest no smaller.
    @Test(arguments: [0, 2, 6])
    func effortMatchesLibvipsAtTheSameEffort(_ effort: Int) throws {
        let image = SyntheticImage.allCases.map(\.image).max { $0.width * $0.height < $1.width * $1.height }!
        for lossless in [false, true] {
            let ours = try VipsEncoder(webpLossless: lossless, webpEffort: effort).encode(image, as: .webp, quality: 90)
            let theirs = try VipsEncoder(webpLossless: lossless, webpEffort: effort, usesLibwebp: false).encode(image, as: .webp, quality: 90)
            #expect(ours == WebPChunks.withoutEXIF(theirs), "effort \(effort), lossless \(lossless)")
        }
        let photo = TestImages.gradient(width: 256, height: 192)
        let fastest = try VipsEncoder(webpEffort: 0).encode(photo, as: .webp, quality: 90)
        let smallest = try VipsEncoder(webpEffort: 6).encode(photo, as: .webp, quality: 90)
        #expect(fastest != smallest)
        #expect(fastest.count >= smallest.count)
        let outOfRange = try VipsEncoder(webpEffort: 99).encode(photo, as: .webp, quality: 90)
        #expect(outOfRange == smallest, "clamped to 6")
    }

    @Test func declinesAnimationsSoLibvipsKeepsEveryFrame() throws {
        let a = TestImages.gradient(width: 20, height: 10), b = TestImages.solid(width: 20, height: 10, layout: .rgb, [9, 99, 199])
        let animation = Image(width: 20, height: 10, layout: .rgb, frames: [a.frames[0], b.frames[0]], loopCount: 0)
        #expect(LibwebpEncoder.encode(animation, quality: 80, lossless: false) == nil)
        let names = WebPChunks.names(try Self.fast.encode(animation, as: .webp))
        #expect(names.contains("ANIM") && names.filter { $0 == "ANMF" }.count == 2)
    }

    @Test func declinesWhatWebPCannotHoldSoLibvipsReportsIt() throws {
        let wide = TestImages.solid(width: LibwebpEncoder.maximumSide + 1, height: 1, layout: .rgb, [1, 2, 3])
        #expect(LibwebpEncoder.encode(wide, quality: 80, lossless: false) == nil)
        #expect(throws: ImageEncodingError.self) { try Self.fast.encode(wide, as: .webp) }
        let widest = TestImages.solid(width: LibwebpEncoder.maximumSide, height: 1, layout: .rgb, [1, 2, 3])
        try Self.compare(widest, Setting(quality: 80, lossless: false), "16383×1")
    }
}
