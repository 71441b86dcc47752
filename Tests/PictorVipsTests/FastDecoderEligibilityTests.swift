import Foundation
import PictorCore
@testable import PictorVips
import PictorTestSupport
import Testing

/// Which files each fast decoder accepts, judged from their headers before decoding, and what
/// becomes of the files it refuses: ``ImageDecoderRegistry/vips`` hands them to ``VipsDecoder``,
/// which gives the same answer (image or error, same pixels) as libvips alone.
@Suite("Fast decoder eligibility")
struct FastDecoderEligibilityTests {
    static let registry = ImageDecoderRegistry.vips
    static let libvips = VipsDecoder()

    static func data(_ path: String) throws -> Data {
        try #require(Corpus.isAvailable, "needs ../shared/corpus")
        return try Corpus.data(path)
    }

    /// The same outcome through the registry as through libvips alone: both images with the
    /// same pixels, or both the same error.
    static func expectLibvipsAnswer(_ data: Data, _ options: ImageDecodingOptions, _ label: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        let ours = Result { try registry.decode(data, options: options) }, theirs = Result { try libvips.decode(data, options: options) }
        switch (ours, theirs) {
        case let (.success(a), .success(b)): #expect(a == b, "\(label): pixels differ from libvips'", sourceLocation: sourceLocation)
        case let (.failure(a), .failure(b)):
            #expect((a as? ImageDecodingError) == (b as? ImageDecodingError), "\(label): \(a) vs \(b)", sourceLocation: sourceLocation)
        default: Issue.record("\(label): registry \(ours), libvips \(theirs)", sourceLocation: sourceLocation)
        }
    }

    static func half(_ data: Data) -> Data { Data(data.prefix(data.count / 2)) }

    @Test func turboJPEGAcceptsPlainJPEGsAndRefusesTheRest() throws {
        let decoder = TurboJPEGDecoder()
        for path in ["pillow/hopper.jpg", "pillow/hopper_gray.jpg", "exif-orientation/Landscape_6.jpg", "libjpeg-turbo/testorig.jpg"] {
            #expect(decoder.accepts(try Self.data(path), format: .jpeg, options: .init()), "\(path)")
            #expect(decoder.accepts(try Self.data(path), format: .jpeg, options: .init(thumbnail: .init(width: 4000, allowsUpscaling: true))),
                    "\(path): enlarging stays on libjpeg-turbo, as before")
        }
        let refused: [(String, Data, ImageDecodingOptions)] = [
            ("CMYK", try Self.data("pillow/pil_sample_cmyk.jpg"), .init()),
            ("ICC profile", try Self.data("pillow/flower2.jpg"), .init()),
            ("ICC profile after SOF", try Self.data("pillow/icc-after-SOF.jpg"), .init()),
            ("12-bit", try Self.data("libjpeg-turbo/monkey12.jpg"), .init()),
            ("truncated", Self.half(try Self.data("exif-orientation/Landscape_5.jpg")), .init()),
            ("truncated, allowed", Self.half(try Self.data("exif-orientation/Landscape_5.jpg")), .init(allowsTruncatedData: true)),
            ("zero-width thumbnail", try Self.data("pillow/hopper.jpg"), .init(thumbnail: .init(width: 0))),
        ]
        for (label, data, options) in refused {
            #expect(!decoder.accepts(data, format: .jpeg, options: options), "\(label)")
            Self.expectLibvipsAnswer(data, options, label)
            #expect(throws: ImageDecodingError.self, "\(label): refused when called directly") { try decoder.decode(data, options: options) }
        }
        #expect(!decoder.accepts(try Self.data("pillow/hopper.png"), format: .png, options: .init()))
        #expect(throws: ImageDecodingError.truncated(.jpeg)) { try decoder.decode(Self.half(try Self.data("pillow/hopper.jpg")), options: .init()) }
    }

    @Test func spngAcceptsPlainPNGsAndRefusesTheRest() throws {
        let decoder = SpngDecoder()
        for path in ["pngsuite/basn0g08.png", "pngsuite/basn2c08.png", "pngsuite/basn4a08.png", "pngsuite/basn6a08.png"] {
            #expect(decoder.accepts(try Self.data(path), format: .png, options: .init()), "\(path)")
        }
        let refused: [(String, Data, ImageDecodingOptions)] = [
            ("ICC profile", try Self.data("pillow/icc_profile.png"), .init()),
            ("eXIf", try Self.data("pngsuite/exif2c08.png"), .init()),
            ("APNG", try Self.data("pillow/apng_single_frame.png"), .init()),
            ("bad IDAT CRC", try Self.data("pngsuite/xcsn0g01.png"), .init()),
            ("palette", try Self.data("pngsuite/basn3p04.png"), .init()),
            ("interlaced", try Self.data("pngsuite/basi2c08.png"), .init()),
            ("tRNS", try Self.data("pillow/rgb_trns.png"), .init()),
            ("16-bit", try Self.data("pngsuite/basn2c16.png"), .init()),
            ("no IEND", Self.half(try Self.data("pillow/hopper.png")), .init()),
            ("enlarged thumbnail", try Self.data("pngsuite/basn2c08.png"), .init(thumbnail: .init(width: 64, allowsUpscaling: true))),
        ]
        for (label, data, options) in refused {
            #expect(!decoder.accepts(data, format: .png, options: options), "\(label)")
            // libvips itself answers this file either way from one call to the next while other
            // decodes run (the manifest allows both: "either decode or clear error"), so two of
            // its answers are not compared.
            if label != "bad IDAT CRC" { Self.expectLibvipsAnswer(data, options, label) }
            #expect(throws: ImageDecodingError.self, "\(label): refused when called directly") { try decoder.decode(data, options: options) }
        }
    }

    @Test func libwebpAcceptsStillWebPsAndRefusesTheRest() throws {
        let decoder = WebPDecoder()
        for path in ["pillow/hopper.webp", "webp/lossless1.webp", "webp/lossy_alpha2.webp"] {
            #expect(decoder.accepts(try Self.data(path), format: .webp, options: .init()), "\(path)")
        }
        let refused: [(String, Data, ImageDecodingOptions)] = [
            ("animation", try Self.data("pillow/iss634.webp"), .init()),
            ("ICC profile", try Self.data("pillow/flower2.webp"), .init()),
            ("shorter than its RIFF size", Self.half(try Self.data("pillow/hopper.webp")), .init()),
            ("enlarged thumbnail", try Self.data("pillow/hopper.webp"), .init(thumbnail: .init(width: 512, allowsUpscaling: true))),
        ]
        for (label, data, options) in refused {
            #expect(!decoder.accepts(data, format: .webp, options: options), "\(label)")
            Self.expectLibvipsAnswer(data, options, label)
            #expect(throws: ImageDecodingError.self, "\(label): refused when called directly") { try decoder.decode(data, options: options) }
        }
    }

    /// The default registry's choice, file by file.
    @Test func theRegistryPicksTheFastDecoderForWhatItAccepts() throws {
        let registry = Self.registry
        let cases: [(String, ImageFormat, Any.Type)] = [
            ("pillow/hopper.jpg", .jpeg, TurboJPEGDecoder.self), ("pillow/pil_sample_cmyk.jpg", .jpeg, VipsDecoder.self),
            ("pngsuite/basn2c08.png", .png, SpngDecoder.self), ("pngsuite/basn3p04.png", .png, VipsDecoder.self),
            ("pillow/hopper.webp", .webp, WebPDecoder.self), ("pillow/iss634.webp", .webp, VipsDecoder.self),
            ("pillow/chi.gif", .gif, VipsDecoder.self),
        ]
        for (path, format, expected) in cases {
            let chosen = try #require(registry.decoder(for: try Self.data(path), format: format, options: .init()))
            #expect(type(of: chosen) == expected, "\(path): \(type(of: chosen))")
        }
        let libvipsOnly = ImageDecoderRegistry.vips(fastPaths: false)
        #expect(libvipsOnly.entries.count == 1 && libvipsOnly.decoder(for: .jpeg) is VipsDecoder)
    }

    /// Damaged entropy data gives libjpeg warnings: libvips decodes through them, so does
    /// libjpeg-turbo, to the same pixels (the decode it starts is never handed on).
    @Test func jpegsWithLibjpegWarningsGiveLibvipsPixels() throws {
        let source = try Self.data("pillow/hopper.jpg")
        let scan = try #require((0..<(source.count - 1)).first { source[$0] == 0xFF && source[$0 + 1] == 0xDA })
        var generator = SplitMix64(seed: 42)
        var warned = 0
        for round in 0..<48 {
            var bytes = [UInt8](source)
            for _ in 0..<[1, 4, 16, 64][round % 4] { bytes[Int.random(in: (scan + 20)..<(bytes.count - 2), using: &generator)] = .random(in: 0...255, using: &generator) }
            let data = Data(bytes)
            guard TurboJPEGDecoder().accepts(data, format: .jpeg, options: .init()) else { continue }
            Self.expectLibvipsAnswer(data, .init(), "round \(round)")
            // A thumbnail: the same outcome (the two resample differently).
            let thumbnail = ImageDecodingOptions(thumbnail: .init(width: 32))
            let ours = (try? Self.registry.decode(data, options: thumbnail)) != nil
            let theirs = (try? Self.libvips.decode(data, options: thumbnail)) != nil
            #expect(ours == theirs, "round \(round) thumbnail")
            if (try? Self.libvips.decode(data, options: .init())) != nil { warned += 1 }
        }
        #expect(warned > 20)
    }

    /// Image data past the last row, which libpng only warns about, gives libvips' rows.
    @Test func pngDataPastTheLastRowGivesLibvipsPixels() throws {
        var generator = SplitMix64(seed: 7)
        let width = 30, height = 20, rowBytes = width * 3
        var filtered = (0..<((rowBytes + 1) * (height + 5))).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for row in 0..<(height + 5) { filtered[row * (rowBytes + 1)] = UInt8(row % 5) }
        let data = HostilePNGTests.png(width: UInt32(width), height: UInt32(height), depth: 8, colourType: 2, interlace: 0,
                                       palette: 0, filtered: filtered, splitIDAT: true)
        #expect(SpngDecoder().accepts(data, format: .png, options: .init()))
        let image = try Self.registry.decode(data, options: .init())
        #expect(image == (try Self.libvips.decode(data, options: .init())))
    }
}
