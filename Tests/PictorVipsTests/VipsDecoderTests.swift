import Foundation
import PictorCore
import PictorVips
import Synchronization
import Testing

@Suite("VipsDecoder")
struct VipsDecoderTests {
    let decoder = ImageDecoderRegistry.vips

    func corpus(_ path: String) throws -> Data {
        try #require(Corpus.isAvailable ? Corpus.data(path) : nil, "corpus absent at \(Corpus.root.path)")
    }

    @Test func emptyAndUnknownDataAreTypedErrors() {
        #expect(throws: ImageDecodingError.emptyData) { try decoder.decode(Data(), options: .init()) }
        #expect(throws: ImageDecodingError.unknownFormat) { try decoder.decode(Data("<html>hi</html>".utf8), options: .init()) }
        // A JPEG signature with nothing after it.
        #expect(throws: ImageDecodingError.self) { try decoder.decode(Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0, 0]), options: .init()) }
    }

    @Test func bmpIsUnsupportedWithoutImageMagick() throws {
        var bmp = Data("BM".utf8)
        bmp.append(Data([0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 40, 0, 0, 0]))
        bmp.append(Data(count: 60))
        if !VipsDecoder.supportedFormats.contains(.bmp) {
            #expect(throws: ImageDecodingError.unsupportedFormat(.bmp)) { try decoder.decode(bmp, options: .init()) }
        }
    }

    /// The bomb's frame is 65535×1321 at offset (0, 65280): a canvas holding it is 65535×66601
    /// (≈ 4.3 gigapixels), which is what is checked.
    @Test func gifBombFailsBeforeDecodingAndNamesItsSize() throws {
        let data = try corpus("pillow/decompression_bomb.gif")
        #expect(throws: ImageDecodingError.tooManyPixels(width: 65535, height: 66601, limit: ImageDecodingOptions.defaultMaximumPixelCount)) {
            try decoder.decode(data, options: .init())
        }
    }

    @Test func pixelLimitIsCheckedAgainstTheHeader() throws {
        let data = try corpus("pillow/hopper.jpg")
        #expect(throws: ImageDecodingError.tooManyPixels(width: 128, height: 128, limit: 16_383)) {
            try decoder.decode(data, options: .init(maximumPixelCount: 16_383))
        }
        #expect(try decoder.decode(data, options: .init(maximumPixelCount: 16_384)).width == 128)
        // The limit applies to the source even when a small thumbnail is asked for.
        #expect(throws: ImageDecodingError.self) {
            try decoder.decode(data, options: .init(thumbnail: .init(width: 16), maximumPixelCount: 1000))
        }
    }

    @Test func truncatedJPEGFailsByDefaultAndIsAcceptedOnRequest() throws {
        let full = try corpus("exif-orientation/Landscape_1.jpg")
        let half = full.prefix(full.count / 2)
        #expect(throws: ImageDecodingError.truncated(.jpeg)) { try decoder.decode(half, options: .init()) }
        #expect(throws: ImageDecodingError.truncated(.jpeg)) {
            try decoder.decode(half, options: .init(thumbnail: .init(width: 64)))
        }
        let image = try decoder.decode(half, options: .init(allowsTruncatedData: true))
        #expect(image.width == 1800 && image.height == 1200)
    }

    /// A cut JPEG that libvips must rotate (EXIF orientation 5 to 8, at full size: libvips loads
    /// it with random access, which did not fail on the cut scan) is refused as truncated, as
    /// an upright one is: it was delivered, and cached, mostly black.
    @Test(arguments: ["pillow/hopper_orientation_5.jpg", "pillow/hopper_orientation_6.jpg", "pillow/hopper_orientation_7.jpg",
                      "pillow/hopper_orientation_8.jpg", "exif-orientation/Landscape_6.jpg", "exif-orientation/Portrait_8.jpg"])
    func aCutJPEGThatMustBeRotatedIsTruncated(name: String) throws {
        let full = try corpus(name)
        let whole = try decoder.decode(full, options: .init())
        for fraction in [0.3, 0.5, 0.9] {
            let cut = full.prefix(Int(Double(full.count) * fraction))
            #expect(throws: ImageDecodingError.truncated(.jpeg), "\(name) cut at \(fraction)") { try decoder.decode(cut, options: .init()) }
            #expect(throws: ImageDecodingError.truncated(.jpeg), "\(name) cut at \(fraction)") {
                try decoder.decode(cut, options: .init(thumbnail: .init(width: 64)))
            }
            let accepted = try decoder.decode(cut, options: .init(allowsTruncatedData: true))
            #expect(accepted.width == whole.width && accepted.height == whole.height, "\(name) cut at \(fraction)")
        }
    }

    @Test func junkAfterTheEndMarkerIsAccepted() throws {
        var data = try corpus("pillow/hopper.jpg")
        data.append(Data(repeating: 0x5A, count: 4096))
        let image = try decoder.decode(data, options: .init())
        #expect(image.width == 128 && image.layout == .rgb && image.sourceFormat == .jpeg)
    }

    @Test func twelveBitJPEGIsUnsupported() throws {
        let data = try corpus("libjpeg-turbo/monkey12.jpg")
        #expect(throws: ImageDecodingError.unsupportedVariant(.jpeg, detail: "12-bit samples (only 8-bit JPEG is decoded)")) {
            try decoder.decode(data, options: .init())
        }
    }

    @Test func aThumbnailOfZeroWidthIsAnInvalidOption() throws {
        let data = try corpus("exif-orientation/Landscape_1.jpg")
        #expect(throws: ImageDecodingError.invalidOptions(detail: "thumbnail size must be positive, got 0×auto")) {
            try decoder.decode(data, options: .init(thumbnail: ThumbnailOptions(width: 0)))
        }
    }

    @Test(arguments: 1...8)
    func thumbnailsKeepOrientation(orientation: Int) throws {
        let data = try corpus("exif-orientation/Portrait_\(orientation).jpg")
        let full = try decoder.decode(data, options: .init())
        let thumb = try decoder.decode(data, options: .init(thumbnail: .init(width: 120)))
        #expect(full.width == 1200 && full.height == 1800)
        #expect(thumb.width == 120 && thumb.height == 180)
        let a = Signature.of(full, alpha: false), b = Signature.of(thumb, alpha: false)
        let worst = zip(a, b).map { abs($0 - $1) }.max() ?? 0
        #expect(worst <= 12, "thumbnail of orientation \(orientation) differs from the full decode by \(worst)")
    }

    @Test func thumbnailContentModes() throws {
        let data = try corpus("exif-orientation/Landscape_1.jpg")
        let fit = try decoder.decode(data, options: .init(thumbnail: .init(width: 300, height: 300)))
        #expect(fit.width == 300 && fit.height == 200)
        let fill = try decoder.decode(data, options: .init(thumbnail: .init(width: 100, height: 100, contentMode: .aspectFill)))
        #expect(fill.width == 100 && fill.height == 100)
        let stretch = try decoder.decode(data, options: .init(thumbnail: .init(width: 100, height: 30, contentMode: .stretch)))
        #expect(stretch.width == 100 && stretch.height == 30)
    }

    @Test func thumbnailsNeverUpscaleUnlessAsked() throws {
        let data = try corpus("pillow/hopper.png")
        let same = try decoder.decode(data, options: .init(thumbnail: .init(width: 512)))
        #expect(same.width == 128 && same.height == 128)
        let up = try decoder.decode(data, options: .init(thumbnail: .init(width: 256, allowsUpscaling: true)))
        #expect(up.width == 256 && up.height == 256)
    }

    @Test func sixteenBitAndCMYKThumbnailsComeOutAs8BitSRGB() throws {
        let png16 = try decoder.decode(try corpus("pngsuite/basn6a16.png"), options: .init(thumbnail: .init(width: 16)))
        #expect(png16.layout == .rgba && png16.width == 16)
        let cmyk = try decoder.decode(try corpus("pillow/pil_sample_cmyk.jpg"), options: .init(thumbnail: .init(width: 50)))
        #expect(cmyk.layout == .rgb && cmyk.width == 50)
        let full = try decoder.decode(try corpus("pillow/pil_sample_cmyk.jpg"), options: .init())
        let a = Signature.of(full, alpha: false), b = Signature.of(cmyk, alpha: false)
        #expect((zip(a, b).map { abs($0 - $1) }.max() ?? 0) <= 12)
    }

    @Test func animatedGIFFirstFrameByDefault() throws {
        let image = try decoder.decode(try corpus("pillow/chi.gif"), options: .init())
        #expect(image.frames.count == 1 && image.sourceFrameCount == 31 && !image.isAnimated)
    }

    @Test(arguments: [("pillow/chi.gif", 31), ("pillow/iss634.webp", 42), ("pillow/iss634.gif", 42)])
    func animationsDecodeEveryFrameOnRequest(path: String, frames: Int) throws {
        let image = try decoder.decode(try corpus(path), options: .init(allFrames: true))
        #expect(image.frames.count == frames)
        #expect(image.sourceFrameCount == frames)
        #expect(image.loopCount != nil)
        #expect(image.frames.allSatisfy { ($0.duration ?? -1) >= 0 })
        #expect(image.frames.allSatisfy { $0.pixels.count == image.bytesPerRow * image.height })
        let thumb = try decoder.decode(try corpus(path), options: .init(thumbnail: .init(width: 64), allFrames: true))
        #expect(thumb.frames.count == frames && thumb.width == 64)
    }

    @Test func registryDispatchesToVips() throws {
        let registry = ImageDecoderRegistry.vips
        #expect(registry.decoder(for: .jpeg) != nil)
        let image = try registry.decode(try corpus("pillow/hopper.webp"), options: .init())
        #expect(image.sourceFormat == .webp && image.width == 128)
    }

    @Test func svgDecodes() throws {
        guard VipsDecoder.supportedFormats.contains(.svg) else { return }
        let svg = Data("""
        \u{FEFF}<?xml version="1.0"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#f00"/></svg>
        """.utf8)
        let image = try decoder.decode(svg, options: .init())
        #expect(image.width == 40 && image.height == 20 && image.sourceFormat == .svg)
        let rgba = [UInt8](image.rgba8())
        #expect(rgba[0] == 255 && rgba[1] == 0 && rgba[3] == 255)
    }
}

@Suite("VipsRuntime logging")
struct VipsRuntimeLogTests {
    @Test func libvipsWarningsGoToThePictorLog() throws {
        guard Corpus.isAvailable else { return }
        let messages = Mutex<[String]>([])
        VipsRuntime.setLog(PictorLog(level: .debug) { _, message in messages.withLock { $0.append(message) } })
        defer { VipsRuntime.setLog(.disabled) }
        let full = try Corpus.data("exif-orientation/Landscape_2.jpg")
        _ = try ImageDecoderRegistry.vips.decode(full.prefix(full.count / 3), options: .init(allowsTruncatedData: true))
        #expect(messages.withLock { $0.contains { $0.hasPrefix("libvips:") } })
    }
}

/// libvips keeps one process-wide error buffer: a failure must report its own reason, on one line.
@Suite struct VipsErrorReasonTests {
    @Test func aFailureDoesNotReportAnEarlierDecodesWarnings() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus")
        guard FileManager.default.fileExists(atPath: root.path) else { return }
        let decoder = ImageDecoderRegistry.vips
        let junk = try Data(contentsOf: root.appendingPathComponent("pillow/junk_jpeg_header.jpg"))
        let png = try Data(contentsOf: root.appendingPathComponent("pngsuite/xc9n2c08.png"))
        _ = try? decoder.decode(junk, options: .init())
        do {
            _ = try decoder.decode(png, options: .init())
            Issue.record("xc9n2c08.png must fail")
        } catch {
            let text = String(describing: error)
            #expect(!text.contains("VipsJpeg"), "\(text)")
            #expect(!text.contains("\n"), "\(text)")
        }
    }
}
