import Foundation
import PictorCore
import PictorVips
import Testing

/// Resampling straight (unpremultiplied) alpha mixes the colour of fully transparent pixels
/// into their visible neighbours: a white halo around a coloured edge. Every resample must
/// premultiply first and unpremultiply after.
@Suite("Alpha is premultiplied for every resample")
struct AlphaResampleTests {
    static let colour: [UInt8] = [0, 160, 0]

    /// 32×32 RGBA: the left half a half-transparent green, the right half fully transparent white.
    static func edge() -> Image {
        var bytes = [UInt8](repeating: 0, count: 32 * 32 * 4)
        for y in 0..<32 {
            for x in 0..<32 {
                let i = (y * 32 + x) * 4
                let pixel: [UInt8] = x < 16 ? colour + [128] : [255, 255, 255, 0]
                for c in 0..<4 { bytes[i + c] = pixel[c] }
            }
        }
        return Image(width: 32, height: 32, layout: .rgba, pixels: Data(bytes))
    }

    /// Every pixel with alpha > 0 keeps the edge's colour: no white bled into red or blue, green unchanged.
    static func expectNoBleed(_ image: Image, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(image.layout == .rgba, "\(label): \(image.layout)", sourceLocation: sourceLocation)
        guard image.layout == .rgba else { return }
        var worst: (distance: Int, pixel: [UInt8]) = (0, [])
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = TestImages.pixel(image, x, y)
                guard p[3] > 0 else { continue }
                let distance = (0..<3).map { abs(Int(p[$0]) - Int(colour[$0])) }.max()!
                if distance > worst.distance { worst = (distance, p) }
            }
        }
        #expect(worst.distance <= 3, "\(label): white bled into a visible pixel: \(worst.pixel)", sourceLocation: sourceLocation)
    }

    let context = ImageProcessingContext(renderer: VipsRenderer())

    @Test func resizeDownAndUpKeepsTheEdgeColour() throws {
        let source = Self.edge()
        Self.expectNoBleed(try ImageProcessors.Resize(width: 8).process(source, context: context), "down")
        Self.expectNoBleed(try ImageProcessors.Resize(width: 100, allowsUpscaling: true).process(source, context: context), "up")
        Self.expectNoBleed(try ImageProcessors.Resize(width: 20, height: 7, contentMode: .stretch).process(source, context: context), "stretch")
    }

    @Test func resizeLaterInAChainKeepsTheEdgeColour() throws {
        let chain: [any ImageProcessing] = [.crop(x: 0, y: 0, width: 30, height: 30), .resize(width: 9), .resize(width: 45, allowsUpscaling: true)]
        Self.expectNoBleed(try chain.reduce(Self.edge()) { try $1.process($0, context: context) }, "chain")
    }

    @Test func renderingOnAnAnimationKeepsTheEdgeColour() throws {
        let edge = Self.edge()
        let animation = Image(width: 32, height: 32, layout: .rgba, frames: [.init(pixels: edge.pixels, duration: 0.1),
                                                                            .init(pixels: edge.pixels, duration: 0.1)], loopCount: 0)
        let out = try VipsRenderer().resize(animation, to: ThumbnailOptions(width: 11))
        Self.expectNoBleed(out, "animation")
    }

    @Test(arguments: [ImageFormat.png, .webp])
    func thumbnailsKeepTheEdgeColour(format: ImageFormat) throws {
        let encoded = try VipsEncoder(webpLossless: true).encode(Self.edge(), as: format, quality: 100)
        let decoder = ImageDecoderRegistry.vips
        Self.expectNoBleed(try decoder.decode(encoded, options: .init(thumbnail: .init(width: 8))), "\(format) down")
        Self.expectNoBleed(try decoder.decode(encoded, options: .init(thumbnail: .init(width: 77, allowsUpscaling: true))), "\(format) up")
    }
}
