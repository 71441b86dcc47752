import Foundation
import PictorCore
import PictorVips
import Testing

@Suite("VipsEncoder round trips")
struct VipsEncoderTests {
    let encoder = VipsEncoder()
    let decoder = ImageDecoderRegistry.vips

    func maxDifference(_ a: Image, _ b: Image) -> Int {
        zip(a.rgba8(), b.rgba8()).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    @Test(arguments: [(ImageFormat.jpeg, 12), (.png, 0), (.webp, 16), (.avif, 24)])
    func rgbRoundTrip(format: ImageFormat, tolerance: Int) throws {
        let source = TestImages.gradient(width: 64, height: 48)
        let data = try encoder.encode(source, as: format, quality: 90)
        #expect(ImageFormat.sniff(data) == format)
        let decoded = try decoder.decode(data, options: .init())
        #expect(decoded.width == 64 && decoded.height == 48 && decoded.sourceFormat == format)
        #expect(maxDifference(source, decoded) <= tolerance)
    }

    @Test func pngKeepsAlphaAndGrey() throws {
        let rgba = TestImages.solid(width: 8, height: 8, layout: .rgba, [1, 2, 3, 4])
        #expect(try decoder.decode(try encoder.encode(rgba, as: .png, quality: 80), options: .init()) == Image(
            width: 8, height: 8, layout: .rgba, pixels: rgba.pixels, sourceFormat: .png))
        let grey = TestImages.solid(width: 8, height: 8, layout: .grayAlpha, [9, 200])
        let back = try decoder.decode(try encoder.encode(grey, as: .png, quality: 80), options: .init())
        #expect(back.layout == .grayAlpha && back.pixels == grey.pixels)
    }

    @Test func webpKeepsAlpha() throws {
        let rgba = TestImages.solid(width: 16, height: 16, layout: .rgba, [200, 10, 10, 128])
        let back = try decoder.decode(try encoder.encode(rgba, as: .webp, quality: 90), options: .init())
        #expect(back.layout == .rgba && abs(Int(TestImages.pixel(back, 5, 5)[3]) - 128) <= 2)
    }

    @Test func jpegFlattensAlphaOverWhite() throws {
        let clear = TestImages.solid(width: 16, height: 16, layout: .rgba, [0, 0, 0, 0])
        let back = try decoder.decode(try encoder.encode(clear, as: .jpeg, quality: 90), options: .init())
        #expect(back.layout == .rgb && TestImages.pixel(back, 8, 8).allSatisfy { $0 > 250 })
    }

    @Test func greyEncodesToEveryFormat() throws {
        let grey = TestImages.solid(width: 16, height: 16, layout: .gray, [120])
        for format in [ImageFormat.jpeg, .png, .webp, .avif] {
            let back = try decoder.decode(try encoder.encode(grey, as: format, quality: 90), options: .init())
            #expect(back.width == 16, "\(format)")
            #expect(abs(Int(back.rgba8()[0]) - 120) <= 6, "\(format)")
        }
    }

    @Test func qualityChangesSize() throws {
        let source = TestImages.gradient(width: 128, height: 128)
        let low = try encoder.encode(source, as: .jpeg, quality: 10)
        let high = try encoder.encode(source, as: .jpeg, quality: 95)
        #expect(low.count < high.count)
    }

    @Test func unsupportedFormatsAreTypedErrors() {
        #expect(throws: ImageEncodingError.unsupportedFormat(.tiff)) {
            try encoder.encode(TestImages.gradient(width: 4, height: 4), as: .tiff, quality: 80)
        }
    }

    @Test func reencodingKeepsOrientationApplied() throws {
        guard Corpus.isAvailable else { return }
        let data = try Corpus.data("pillow/hopper_orientation_6.jpg")
        let image = try decoder.decode(data, options: .init())
        let again = try decoder.decode(try encoder.encode(image, as: .jpeg, quality: 95), options: .init())
        let a = signature(image), b = signature(again)
        #expect((zip(a, b).map { abs($0 - $1) }.max() ?? 0) <= 6)
    }

    private func signature(_ image: Image) -> [Int] { Signature.of(image, alpha: false) }
}

/// `Image.encoded(as:quality:)`: the documented default quality is the one used.
@Suite struct ImageEncodedTests {
    @Test(arguments: [ImageFormat.jpeg, .webp])
    func theDefaultQualityIsTheDocumentedOne(format: ImageFormat) throws {
        let image = TestImages.gradient(width: 64, height: 48)
        let byDefault = try image.encoded(as: format)
        #expect(VipsEncoder.defaultQuality == 80)
        #expect(byDefault == (try image.encoded(as: format, quality: 80)), "the default is 80, byte for byte")
        #expect(byDefault == (try VipsEncoder().encode(image, as: format)), "the encoder's default is the same")
        #expect(byDefault != (try image.encoded(as: format, quality: 20)), "quality changes the bytes")
    }

    @Test func pngIgnoresQualityAndOtherFormatsAreRefused() throws {
        let image = TestImages.gradient(width: 16, height: 16)
        #expect(try image.encoded(as: .png) == (try image.encoded(as: .png, quality: 5)))
        #expect(throws: ImageEncodingError.unsupportedFormat(.tiff)) { try image.encoded(as: .tiff) }
    }
}
