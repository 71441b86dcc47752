import Foundation
import PictorCore
@testable import PictorVips
import Testing

/// The libwebp WebP fast path against libvips on every WebP of the corpus (libwebp's test files,
/// Pillow's): the same outcome (an image or an error), size, layout and frame count as libvips
/// and as the manifest; full-size pixels within ``fullSizeTolerance`` (the same libwebp decodes
/// both); thumbnails the same box, fitted and filled ones within ``fullSizeTolerance`` too (the
/// same scaled decode), stretched ones a 4×4 signature (alpha included) within
/// ``stretchTolerance`` levels (libvips resizes one axis after a uniform scaled decode).
@Suite("libwebp fast path")
struct WebPFastPathTests {
    static let fullSizeTolerance = 1
    static let stretchTolerance = 6
    static let targets = DecoderTestFixtures.thumbnailTargets
    static let fast = ImageDecoderRegistry.vips, slow = VipsDecoder()

    static func webpRows() throws -> [Corpus.Row] {
        try Corpus.rows().filter { $0.format == "webp" }
    }

    /// Whether the fast path decodes `data` itself (rather than leaving it to libvips).
    static func taken(_ data: Data, _ options: ImageDecodingOptions = .init()) throws -> Bool {
        WebPDecoder().accepts(data, format: .webp, options: options)
    }

    /// Decodes with both paths; records a mismatch of outcome and returns the pair when both succeed.
    static func both(_ path: String, _ data: Data, _ options: ImageDecodingOptions,
                     sourceLocation: SourceLocation = #_sourceLocation) -> (Image, Image)? {
        let a = Result { try fast.decode(data, options: options) }, b = Result { try slow.decode(data, options: options) }
        switch (a, b) {
        case let (.success(a), .success(b)):
            #expect(a.width == b.width && a.height == b.height, "\(path): \(a.width)x\(a.height) vs \(b.width)x\(b.height)",
                    sourceLocation: sourceLocation)
            #expect(a.layout == b.layout, "\(path): \(a.layout) vs \(b.layout)", sourceLocation: sourceLocation)
            #expect(a.frames.count == b.frames.count && a.sourceFrameCount == b.sourceFrameCount, "\(path)", sourceLocation: sourceLocation)
            #expect(a.sourceFormat == .webp && a.isTruncated == b.isTruncated && a.loopCount == b.loopCount, "\(path)",
                    sourceLocation: sourceLocation)
            guard a.width == b.width, a.height == b.height, a.layout == b.layout, a.frames.count == b.frames.count else { return nil }
            return (a, b)
        case let (.failure(a), .failure(b)):
            #expect(a is ImageDecodingError && b is ImageDecodingError, "\(path): \(a) / \(b)", sourceLocation: sourceLocation)
            return nil
        default:
            Issue.record("\(path): fast path \(a), libvips \(b)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// The largest difference of one sample between two images of the same shape.
    static func worstSample(_ a: Image, _ b: Image) -> Int {
        zip(a.frames, b.frames).map { fa, fb in
            fa.pixels.withUnsafeBytes { pa in
                fb.pixels.withUnsafeBytes { pb in
                    zip(pa, pb).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
                }
            }
        }.max() ?? 0
    }

    @Test(arguments: [ImageDecodingOptions(), .init(allFrames: true), .init(allowsTruncatedData: true)])
    func fullSizeDecodesMatchLibvipsAndTheManifest(options: ImageDecodingOptions) throws {
        guard Corpus.isAvailable else { print("WebPFastPathTests: corpus absent; skipped"); return }
        var compared = 0
        for row in try Self.webpRows() {
            let data = try Corpus.data(row.path)
            guard let (a, b) = Self.both(row.path, data, options) else {
                #expect(row.expect != .ok, "\(row.path): the manifest expects an image")
                continue
            }
            #expect(row.expect != .error, "\(row.path): the manifest expects an error")
            #expect(a.width == row.width && a.height == row.height && a.hasAlpha == row.alpha, "\(row.path): manifest")
            let worst = Self.worstSample(a, b)
            #expect(worst <= Self.fullSizeTolerance, "\(row.path): pixels off by \(worst)")
            compared += 1
        }
        #expect(compared >= 100, "\(compared) compared")
    }

    @Test(arguments: targets)
    func thumbnailsMatchLibvipsOnTheCorpus(target: ThumbnailOptions) throws {
        guard Corpus.isAvailable else { return }
        var compared = 0
        for row in try Self.webpRows() {
            let data = try Corpus.data(row.path)
            guard let (a, b) = Self.both(row.path, data, .init(thumbnail: target)) else { continue }
            if target.contentMode == .stretch {
                let sa = Signature.of(a, alpha: a.hasAlpha), sb = Signature.of(b, alpha: b.hasAlpha)
                let worst = zip(sa, sb).map { abs($0 - $1) }.max() ?? 0
                #expect(worst <= Self.stretchTolerance, "\(row.path) \(target.identifier): signature off by \(worst)")
            } else {
                let worst = Self.worstSample(a, b)
                #expect(worst <= Self.fullSizeTolerance, "\(row.path) \(target.identifier): pixels off by \(worst)")
            }
            compared += 1
        }
        #expect(compared >= 100, "\(compared) compared")
    }

    /// The fast path takes still images of every kind (lossy, lossless, lossy + ALPH, EXIF
    /// orientation) and leaves animations and ICC profiles to libvips.
    @Test func takesStillImagesAndDeclinesTheRest() throws {
        guard Corpus.isAvailable else { return }
        for path in ["pillow/hopper.webp", "webp/lossless1.webp", "webp/lossy_alpha1.webp", "webp/alpha_no_compression.webp",
                     "webp/vp80-00-comprehensive-008.webp", "pillow/hopper_orientation_6.webp", "pillow/flower.webp"] {
            #expect(try Self.taken(Corpus.data(path)), "\(path) should take the fast path")
            #expect(try Self.taken(Corpus.data(path), .init(thumbnail: .init(width: 8))), "\(path) thumbnail")
        }
        for path in ["pillow/iss634.webp", "pillow/flower2.webp"] {
            #expect(try !Self.taken(Corpus.data(path)), "\(path) should go to libvips")
        }
        let takenCount = try Self.webpRows().filter { try Self.taken(Corpus.data($0.path)) }.count
        #expect(takenCount >= 130, "\(takenCount) corpus WebPs took the fast path")
    }

    /// EXIF orientation is applied once: every rotated copy of hopper shows the same picture.
    @Test func exifOrientationIsApplied() throws {
        guard Corpus.isAvailable else { return }
        let upright = Signature.of(try Self.fast.decode(Corpus.data("pillow/hopper.webp"), options: .init()), alpha: false)
        for n in 2...8 {
            for options in [ImageDecodingOptions(), .init(thumbnail: .init(width: 32))] {
                let image = try Self.fast.decode(Corpus.data("pillow/hopper_orientation_\(n).webp"), options: options)
                let scaled = options.thumbnail == nil ? upright
                    : Signature.of(try Self.fast.decode(Corpus.data("pillow/hopper.webp"), options: options), alpha: false)
                let worst = zip(Signature.of(image, alpha: false), scaled).map { abs($0 - $1) }.max() ?? 0
                #expect(worst <= 6, "orientation \(n) \(options.thumbnail?.identifier ?? "full"): off by \(worst)")
            }
        }
    }

    /// Animations still go to libvips, every frame with its timing.
    @Test func animationsKeepTheLibvipsPath() throws {
        guard Corpus.isAvailable else { return }
        let data = try Corpus.data("pillow/iss634.webp")
        let image = try Self.fast.decode(data, options: .init(allFrames: true))
        #expect(image.frames.count == 42 && image.sourceFrameCount == 42 && image.loopCount != nil)
        #expect(try Self.fast.decode(data, options: .init(thumbnail: .init(width: 64))).sourceFrameCount == 42)
    }

    /// The pixel limit is checked from the header, before the fast path allocates anything.
    @Test func pixelLimitAppliesBeforeDecoding() throws {
        guard Corpus.isAvailable else { return }
        let data = try Corpus.data("webp/lossless1.webp")
        #expect(throws: ImageDecodingError.tooManyPixels(width: 1000, height: 307, limit: 1000)) {
            try WebPDecoder().decode(data, options: .init(maximumPixelCount: 1000))
        }
        #expect(throws: ImageDecodingError.tooManyPixels(width: 1000, height: 307, limit: 1000)) {
            try Self.fast.decode(data, options: .init(thumbnail: .init(width: 8), maximumPixelCount: 1000))
        }
    }
}
