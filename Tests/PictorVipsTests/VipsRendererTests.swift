import Foundation
import PictorCore
import PictorVips
import Testing

@Suite("Processors on VipsRenderer")
struct VipsRendererTests {
    let context = ImageProcessingContext(renderer: VipsRenderer())

    func run(_ processors: [any ImageProcessing], _ image: Image) throws -> Image {
        try processors.reduce(image) { try $1.process($0, context: context) }
    }

    @Test func resizeFitFillStretch() throws {
        let source = TestImages.gradient(width: 400, height: 200)
        let fit = try run([.resize(width: 100)], source)
        #expect(fit.width == 100 && fit.height == 50 && fit.layout == .rgb)
        let box = try run([.resize(width: 100, height: 100)], source)
        #expect(box.width == 100 && box.height == 50)
        let fill = try run([.resize(width: 100, height: 100, contentMode: .aspectFill)], source)
        #expect(fill.width == 100 && fill.height == 100)
        let stretch = try run([.resize(width: 50, height: 80, contentMode: .stretch)], source)
        #expect(stretch.width == 50 && stretch.height == 80)
        // Pixels follow the gradient: left edge dark red, right edge bright red.
        #expect(TestImages.pixel(fit, 0, 25)[0] < 20 && TestImages.pixel(fit, 99, 25)[0] > 235)
    }

    @Test func resizeNeverUpscalesUnlessAsked() throws {
        let source = TestImages.gradient(width: 40, height: 20)
        let same = try run([.resize(width: 100)], source)
        #expect(same.width == 40 && same.height == 20)
        let up = try run([.resize(width: 100, allowsUpscaling: true)], source)
        #expect(up.width == 100 && up.height == 50)
    }

    @Test func resizeRejectsZeroSize() {
        #expect(throws: ImageProcessingError.self) { try run([.resize(width: 0)], TestImages.gradient(width: 4, height: 4)) }
    }

    @Test func cropRectAndCentre() throws {
        let source = TestImages.gradient(width: 256, height: 256)
        let rect = try run([.crop(x: 10, y: 20, width: 30, height: 40)], source)
        #expect(rect.width == 30 && rect.height == 40)
        #expect(TestImages.pixel(rect, 0, 0) == TestImages.pixel(source, 10, 20))
        #expect(TestImages.pixel(rect, 29, 39) == TestImages.pixel(source, 39, 59))
        let clamped = try run([.crop(x: 250, y: 250, width: 30, height: 30)], source)
        #expect(clamped.width == 6 && clamped.height == 6)
        let centre = try run([.centerCrop(width: 100, height: 50)], source)
        #expect(centre.width == 100 && centre.height == 50)
        #expect(TestImages.pixel(centre, 0, 0) == TestImages.pixel(source, 78, 103))
        #expect(throws: ImageProcessingError.self) { try run([.crop(x: 300, y: 0, width: 5, height: 5)], source) }
    }

    @Test func roundedCornersClearTheCornersOnly() throws {
        let source = TestImages.solid(width: 64, height: 48, layout: .rgb, [200, 100, 50])
        let out = try run([.roundedCorners(radius: 16)], source)
        #expect(out.layout == .rgba && out.width == 64 && out.height == 48)
        #expect(TestImages.pixel(out, 0, 0)[3] == 0)
        #expect(TestImages.pixel(out, 63, 47)[3] == 0)
        #expect(TestImages.pixel(out, 32, 24) == [200, 100, 50, 255])
        #expect(TestImages.pixel(out, 32, 0)[3] == 255)
        #expect(TestImages.pixel(out, 0, 24)[3] == 255)
        let grey = try run([.roundedCorners(radius: 4)], TestImages.solid(width: 16, height: 16, layout: .gray, [90]))
        #expect(grey.layout == .grayAlpha && TestImages.pixel(grey, 0, 0) == [90, 0])
    }

    @Test func circleIsSquareWithTransparentCorners() throws {
        let out = try run([.circle], TestImages.solid(width: 80, height: 50, layout: .rgba, [10, 20, 30, 255]))
        #expect(out.width == 50 && out.height == 50 && out.layout == .rgba)
        #expect(TestImages.pixel(out, 0, 0)[3] == 0 && TestImages.pixel(out, 49, 49)[3] == 0)
        #expect(TestImages.pixel(out, 25, 25) == [10, 20, 30, 255])
        #expect(TestImages.pixel(out, 25, 0)[3] > 128)
    }

    @Test func blurSmoothsAnEdgeAndKeepsFlatAreas() throws {
        var bytes = [UInt8](repeating: 0, count: 64 * 16)
        for y in 0..<16 { for x in 32..<64 { bytes[y * 64 + x] = 255 } }
        let edge = Image(width: 64, height: 16, layout: .gray, pixels: Data(bytes))
        let out = try run([.gaussianBlur(sigma: 3)], edge)
        #expect(out.width == 64 && out.height == 16 && out.layout == .gray)
        let left = TestImages.pixel(out, 31, 8)[0], right = TestImages.pixel(out, 32, 8)[0]
        #expect(left > 60 && left < 195 && right > 60 && right < 195)
        #expect(TestImages.pixel(out, 2, 8)[0] < 3 && TestImages.pixel(out, 61, 8)[0] > 252)
        #expect(throws: ImageProcessingError.self) { try run([.gaussianBlur(sigma: 0)], edge) }
    }

    @Test func blurDoesNotBleedColourFromTransparentPixels() throws {
        // Left half transparent black, right half opaque white: after blurring, visible pixels stay white.
        var bytes = [UInt8](repeating: 0, count: 32 * 8 * 4)
        for y in 0..<8 { for x in 16..<32 { let i = (y * 32 + x) * 4; bytes[i] = 255; bytes[i + 1] = 255; bytes[i + 2] = 255; bytes[i + 3] = 255 } }
        let out = try run([.gaussianBlur(sigma: 2)], Image(width: 32, height: 8, layout: .rgba, pixels: Data(bytes)))
        let p = TestImages.pixel(out, 15, 4)
        #expect(p[3] > 30 && p[3] < 225)
        #expect(p[0] > 240, "colour bled from transparent pixels: \(p)")
    }

    @Test func grayscaleKeepsAlpha() throws {
        let rgb = try run([.grayscale], TestImages.solid(width: 8, height: 8, layout: .rgb, [100, 100, 100]))
        #expect(rgb.layout == .gray && abs(Int(TestImages.pixel(rgb, 3, 3)[0]) - 100) <= 1)
        let rgba = try run([.grayscale], TestImages.solid(width: 8, height: 8, layout: .rgba, [255, 255, 255, 77]))
        #expect(rgba.layout == .grayAlpha && TestImages.pixel(rgba, 0, 0) == [255, 77])
        let red = try run([.grayscale], TestImages.solid(width: 8, height: 8, layout: .rgb, [255, 0, 0]))
        let r = Int(TestImages.pixel(red, 0, 0)[0])
        #expect(r > 40 && r < 140)
    }

    @Test func compositionAndCustomProcessorsRunInOrder() throws {
        let invert = ImageProcessors.Anonymous(identifier: "invert") { image, _ in
            Image(width: image.width, height: image.height, layout: image.layout, pixels: Data(image.pixels.map { 255 - $0 }))
        }
        let chain: [any ImageProcessing] = [.composition([.resize(width: 100), .centerCrop(width: 50, height: 50)]), invert]
        let out = try run(chain, TestImages.solid(width: 200, height: 100, layout: .rgb, [10, 20, 30]))
        #expect(out.width == 50 && out.height == 50 && TestImages.pixel(out, 10, 10) == [245, 235, 225])
    }

    @Test func animatedFramesKeepTheirTiming() throws {
        let frame = TestImages.gradient(width: 40, height: 40).pixels
        let animation = Image(width: 40, height: 40, layout: .rgb,
                              frames: [.init(pixels: frame, duration: 0.1), .init(pixels: frame, duration: 0.25)], loopCount: 0)
        let out = try run([.resize(width: 20), .roundedCorners(radius: 5)], animation)
        #expect(out.frames.count == 2 && out.width == 20 && out.loopCount == 0)
        #expect(out.frames.map(\.duration) == [0.1, 0.25])
    }

    @Test func processorsOnDecodedCorpusImages() throws {
        guard Corpus.isAvailable else { return }
        let image = try ImageDecoderRegistry.vips.decode(try Corpus.data("exif-orientation/Landscape_6.jpg"), options: .init())
        let out = try run([.resize(width: 300, height: 300, contentMode: .aspectFill), .circle, .gaussianBlur(sigma: 1)], image)
        #expect(out.width == 300 && out.height == 300 && out.layout == .rgba)
    }
}
