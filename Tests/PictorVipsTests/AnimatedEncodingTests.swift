import Foundation
import PictorCore
import PictorVips
import Testing

@Suite("Animated encoding")
struct AnimatedEncodingTests {
    static func animation() -> Image {
        let frames = [UInt8(0), 128, 255].map { value in
            Image.Frame(pixels: Data((0..<(24 * 16)).flatMap { _ in [value, 255 - value, 64, 255] }), duration: 0.05 + Double(value) / 1000)
        }
        return Image(width: 24, height: 16, layout: .rgba, frames: frames, loopCount: 3)
    }

    @Test(arguments: [ImageFormat.webp, .gif])
    func framesTimingAndLoopSurviveARoundTrip(format: ImageFormat) throws {
        let source = Self.animation()
        let data = try VipsEncoder().encode(source, as: format, quality: 90)
        let back = try ImageDecoderRegistry.vips.decode(data, options: .init(allFrames: true))
        #expect(back.frames.count == 3 && back.width == 24 && back.height == 16)
        #expect(back.loopCount == 3)
        for (a, b) in zip(source.frames, back.frames) {
            #expect(abs((a.duration ?? 0) - (b.duration ?? -1)) < 0.011, "\(a.duration ?? 0) vs \(b.duration ?? -1)")
        }
        let middle = TestImages.pixel(Image(width: 24, height: 16, layout: back.layout, frames: [back.frames[1]]), 5, 5)
        #expect(abs(Int(middle[0]) - 128) <= 12 && abs(Int(middle[1]) - 127) <= 12)
    }

    @Test func corpusAnimationReencodesAsWebP() throws {
        guard Corpus.isAvailable else { return }
        let source = try ImageDecoderRegistry.vips.decode(try Corpus.data("pillow/chi.gif"), options: .init(thumbnail: .init(width: 80), allFrames: true))
        let back = try ImageDecoderRegistry.vips.decode(try VipsEncoder().encode(source, as: .webp, quality: 75), options: .init(allFrames: true))
        // libwebp merges identical consecutive frames (adding their durations), so compare the total time.
        #expect(back.frames.count > 1 && back.frames.count <= source.frames.count)
        let total = { (image: Image) in image.frames.reduce(0) { $0 + ($1.duration ?? 0) } }
        #expect(abs(total(back) - total(source)) < 0.05, "\(total(back)) vs \(total(source))")
        #expect(back.width == source.width && back.height == source.height, "\(back.width)x\(back.height) vs \(source.width)x\(source.height)")
    }

    @Test func stillFormatsWriteTheFirstFrame() throws {
        let back = try ImageDecoderRegistry.vips.decode(try VipsEncoder().encode(Self.animation(), as: .png, quality: 80), options: .init(allFrames: true))
        #expect(back.frames.count == 1 && TestImages.pixel(back, 0, 0) == [0, 255, 64, 255])
    }
}
