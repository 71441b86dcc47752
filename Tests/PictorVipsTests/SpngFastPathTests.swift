import Foundation
import PictorCore
@testable import PictorVips
import Testing

/// The libspng PNG fast path against libvips on every PNG of the corpus (PngSuite, Pillow's,
/// libjpeg-turbo's): the same outcome (an image or an error), size, layout and frame count;
/// full size the same pixels; thumbnails a 4×4 signature (alpha included) within
/// ``tolerance`` levels (the two resample with different filters).
@Suite("libspng fast path")
struct SpngFastPathTests {
    static let tolerance = 10
    static let targets = DecoderTestFixtures.thumbnailTargets
    static let fast = ImageDecoderRegistry.vips, slow = VipsDecoder()

    static func pngRows() throws -> [Corpus.Row] {
        try Corpus.rows().filter { $0.path.hasSuffix(".png") }
    }

    /// Decodes with both paths; records a mismatch of outcome and returns the pair when both
    /// succeed. Files the fast path declines are skipped: both sides would be libvips, which is
    /// not always consistent with itself on damaged files (pngsuite/xcsn0g01.png, a bad IDAT CRC).
    static func both(_ row: Corpus.Row, _ options: ImageDecodingOptions, sourceLocation: SourceLocation = #_sourceLocation) throws -> (Image, Image)? {
        let data = try Corpus.data(row.path)
        let taken = SpngDecoder().accepts(data, format: .png, options: options)
        guard taken, !FileStructure.isTruncated(data, format: .png) else { return nil }
        let a = Result { try fast.decode(data, options: options) }, b = Result { try slow.decode(data, options: options) }
        switch (a, b) {
        case let (.success(a), .success(b)):
            #expect(a.width == b.width && a.height == b.height, "\(row.path): \(a.width)x\(a.height) vs \(b.width)x\(b.height)",
                    sourceLocation: sourceLocation)
            #expect(a.layout == b.layout, "\(row.path): \(a.layout) vs \(b.layout)", sourceLocation: sourceLocation)
            #expect(a.frames.count == b.frames.count && a.sourceFrameCount == b.sourceFrameCount, "\(row.path)", sourceLocation: sourceLocation)
            #expect(a.sourceFormat == .png && a.isTruncated == b.isTruncated, "\(row.path)", sourceLocation: sourceLocation)
            guard a.width == b.width, a.height == b.height, a.layout == b.layout else { return nil }
            return (a, b)
        case (.failure, .failure):
            return nil
        default:
            Issue.record("\(row.path): fast path \(a), libvips \(b)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test(arguments: targets)
    func thumbnailsMatchLibvipsOnTheCorpus(target: ThumbnailOptions) throws {
        guard Corpus.isAvailable else { print("SpngFastPathTests: corpus absent; skipped"); return }
        var compared = 0
        for row in try Self.pngRows() {
            guard let (a, b) = try Self.both(row, .init(thumbnail: target)) else { continue }
            let sa = Signature.of(a, alpha: a.hasAlpha), sb = Signature.of(b, alpha: b.hasAlpha)
            let worst = zip(sa, sb).map { abs($0 - $1) }.max() ?? 0
            #expect(worst <= Self.tolerance, "\(row.path) \(target.identifier): off by \(worst)")
            compared += 1
        }
        // Enlarging is left to libvips: then only the corpus's larger files are compared.
        #expect(compared >= (target.allowsUpscaling || target.contentMode == .stretch ? 2 : 40), "\(compared) compared")
    }

    /// Full size: the same pixels as libvips (libspng and libpng agree, 16-bit samples keep
    /// their high byte on both paths), with every option set that reaches the fast path.
    @Test(arguments: [ImageDecodingOptions(), .init(allFrames: true), .init(allowsTruncatedData: true)])
    func fullSizeDecodesMatchLibvipsPixelForPixel(options: ImageDecodingOptions) throws {
        guard Corpus.isAvailable else { return }
        var compared = 0
        for row in try Self.pngRows() {
            guard let (a, b) = try Self.both(row, options) else { continue }
            #expect(a.frames.map(\.pixels) == b.frames.map(\.pixels), "\(row.path): pixels differ")
            compared += 1
        }
        #expect(compared >= 40)
    }

    /// The fast path really takes the corpus's plain files (8-bit grey, grey + alpha, RGB, RGBA,
    /// not interlaced, no palette or tRNS) and declines the rest: what libvips must handle (ICC,
    /// eXIf, APNG, a bad IDAT CRC) and what libspng 0.7.3 cannot be trusted with when damaged
    /// (palette, interlaced, tRNS, other depths).
    @Test func takesPlainFilesAndDeclinesTheRest() throws {
        guard Corpus.isAvailable else { return }
        for path in ["pngsuite/basn0g08.png", "pngsuite/basn2c08.png", "pngsuite/basn4a08.png", "pngsuite/basn6a08.png",
                     "pngsuite/g03n2c08.png"] {
            #expect(try taken(path), "\(path) should take the fast path")
        }
        for path in ["pillow/icc_profile.png", "pngsuite/exif2c08.png", "pillow/apng_single_frame.png", "pillow/broken_data_stream.png",
                     "pngsuite/xcsn0g01.png", "pngsuite/basn0g16.png", "pngsuite/basn4a16.png", "pngsuite/basn0g01.png",
                     "pngsuite/basn3p04.png", "pngsuite/basi4a08.png", "pngsuite/basi2c08.png", "pngsuite/tbbn0g04.png",
                     "pillow/rgb_trns.png", "pngsuite/basn2c16.png"] {
            #expect(try !taken(path), "\(path) should go to libvips")
        }
        let takenCount = try Self.pngRows().filter { $0.expect == .ok }.filter { try taken($0.path) }.count
        #expect(takenCount >= 40, "\(takenCount) corpus PNGs took the fast path")
    }

    private func taken(_ path: String) throws -> Bool {
        let data = try Corpus.data(path)
        return SpngDecoder().accepts(data, format: .png, options: .init())
    }

    /// Transparent edges: resampled premultiplied, so the colour of transparent pixels does not
    /// bleed in; alpha kept on the thumbnail.
    @Test func thumbnailsOfTransparentImagesKeepTheirAlpha() throws {
        guard Corpus.isAvailable else { return }
        for path in ["pngsuite/basn6a08.png", "pngsuite/basn4a08.png", "pillow/rgb_trns.png", "pillow/l_trns.png"] {
            let image = try Self.fast.decode(try Corpus.data(path), options: .init(thumbnail: .init(width: 16)))
            #expect(image.hasAlpha && image.width == 16, "\(path): \(image.layout) \(image.width)")
        }
    }

    /// A PNG cut short is libvips' to judge: `truncated` by default, an image that says so when
    /// truncated data is allowed; the same whichever path is on.
    @Test func truncatedPNGsKeepTheLibvipsRules() throws {
        guard Corpus.isAvailable else { return }
        let full = try Corpus.data("pillow/hopper.png")
        let cut = full.prefix(full.count * 2 / 3)
        for decoder in [Self.fast, Self.slow] as [any ImageDecoding] {
            #expect(throws: ImageDecodingError.truncated(.png)) { try decoder.decode(cut, options: .init(thumbnail: .init(width: 64))) }
            #expect(throws: ImageDecodingError.truncated(.png)) { try decoder.decode(cut, options: .init()) }
            let accepted = try decoder.decode(cut, options: .init(thumbnail: .init(width: 64), allowsTruncatedData: true))
            #expect(accepted.isTruncated && accepted.width == 64)
        }
    }

    /// The pixel limit is checked from the header, before the fast path allocates anything.
    @Test func pixelLimitAppliesBeforeDecoding() throws {
        guard Corpus.isAvailable else { return }
        let data = try Corpus.data("pngsuite/basn2c08.png")
        #expect(throws: ImageDecodingError.tooManyPixels(width: 32, height: 32, limit: 1000)) {
            try SpngDecoder().decode(data, options: .init(maximumPixelCount: 1000))
        }
        #expect(throws: ImageDecodingError.tooManyPixels(width: 32, height: 32, limit: 1000)) {
            try Self.fast.decode(data, options: .init(thumbnail: .init(width: 8), maximumPixelCount: 1000))
        }
    }
}
