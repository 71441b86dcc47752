import Foundation
import PictorCore
import Synchronization
import Testing

@Suite("ImageProcessors")
struct ImageProcessorsTests {
    /// Records what it was asked to do and returns a 1×1 image.
    final class RecordingRenderer: ImageRendering {
        let calls = Mutex<[String]>([])
        private func record(_ call: String) -> Image {
            calls.withLock { $0.append(call) }
            return Image(width: 1, height: 1, layout: .gray, pixels: Data([0]))
        }
        func resize(_ image: Image, to options: ThumbnailOptions) throws -> Image { record("resize \(options.identifier)") }
        func crop(_ image: Image, x: Int, y: Int, width: Int, height: Int) throws -> Image { record("crop \(x),\(y),\(width)x\(height)") }
        func roundCorners(_ image: Image, radius: Double) throws -> Image { record("round \(radius)") }
        func circle(_ image: Image) throws -> Image { record("circle") }
        func gaussianBlur(_ image: Image, sigma: Double) throws -> Image { record("blur \(sigma)") }
        func grayscale(_ image: Image) throws -> Image { record("gray") }
    }

    static let image = Image(width: 400, height: 300, layout: .rgb, pixels: Data(count: 400 * 300 * 3))

    @Test func identifiersNameEveryParameter() {
        #expect(ImageProcessors.Resize(width: 256).identifier == "resize(256x-,aspectFit,noup)")
        #expect(ImageProcessors.Resize(width: 10, height: 20, contentMode: .aspectFill, allowsUpscaling: true).identifier
            == "resize(10x20,aspectFill,up)")
        #expect(ImageProcessors.Crop(.rect(x: 1, y: 2, width: 3, height: 4)).identifier == "crop(1,2,3x4)")
        #expect(ImageProcessors.Crop(.center(width: 3, height: 4)).identifier == "crop(center,3x4)")
        #expect(ImageProcessors.RoundedCorners(radius: 8).identifier == "roundedCorners(8.0)")
        #expect(ImageProcessors.Circle().identifier == "circle")
        #expect(ImageProcessors.GaussianBlur(sigma: 0.5).identifier == "gaussianBlur(0.5)")
        #expect(ImageProcessors.Grayscale().identifier == "grayscale")
        #expect(ImageProcessors.Anonymous(identifier: "sepia") { image, _ in image }.identifier == "custom(5:sepia)")
    }

    @Test func leadingDotFactoriesBuildExistentialArrays() {
        let processors: [any ImageProcessing] = [
            .resize(width: 256), .crop(x: 0, y: 0, width: 1, height: 1), .centerCrop(width: 2, height: 2),
            .roundedCorners(radius: 4), .circle, .gaussianBlur(sigma: 2), .grayscale,
            .composition([.grayscale]), .custom(identifier: "x") { image, _ in image },
        ]
        #expect(processors.count == 9)
    }

    @Test func chainIdentifiersAreUnambiguous() {
        let sep = ImageProcessors.Anonymous(identifier: "a)5:b") { i, _ in i }
        let a = ImageProcessors.Anonymous(identifier: "a") { i, _ in i }
        let b = ImageProcessors.Anonymous(identifier: "b") { i, _ in i }
        let chains: [[any ImageProcessing]] = [
            [], [a], [b], [a, b], [b, a], [sep], [a, sep], [.composition([a, b])], [.composition([a]), b],
            [.composition([])], [.composition([.composition([a])])], [.grayscale, .circle], [.circle, .grayscale],
            [.resize(width: 1, height: 2)], [.resize(width: 12)],
        ]
        let identifiers = chains.map(ImageProcessors.identifier(of:))
        #expect(Set(identifiers).count == chains.count, "\(identifiers)")
        #expect(ImageProcessors.identifier(of: [a, b]) == "18:pictor.custom(1:a)18:pictor.custom(1:b)")
    }

    @Test func resizeFoldsIntoDecoding() {
        #expect(ImageProcessors.Resize(width: 64, height: 32).decodeTimeThumbnail == ThumbnailOptions(width: 64, height: 32))
        #expect(ImageProcessors.Grayscale().decodeTimeThumbnail == nil)
        #expect(ImageProcessors.Composition([.resize(width: 8)]).decodeTimeThumbnail == ThumbnailOptions(width: 8))
        #expect(ImageProcessors.Composition([.resize(width: 8), .grayscale]).decodeTimeThumbnail == nil)
    }

    @Test func processorsDelegateToTheRenderer() throws {
        let renderer = RecordingRenderer()
        let context = ImageProcessingContext(renderer: renderer)
        let chain: [any ImageProcessing] = [.resize(width: 100)]
        _ = try chain[0].process(Self.image, context: context)
        _ = try ImageProcessors.Crop(.center(width: 100, height: 100)).process(Self.image, context: context)
        _ = try ImageProcessors.RoundedCorners(radius: 3).process(Self.image, context: context)
        _ = try ImageProcessors.Circle().process(Self.image, context: context)
        _ = try ImageProcessors.GaussianBlur(sigma: 1.5).process(Self.image, context: context)
        _ = try ImageProcessors.Grayscale().process(Self.image, context: context)
        #expect(renderer.calls.withLock { $0 } == [
            "resize thumb(100x-,aspectFit,noup)", "crop 150,100,100x100", "round 3.0", "circle", "blur 1.5", "gray",
        ])
    }

    @Test func noOpResizesAndCropsSkipTheRenderer() throws {
        let renderer = RecordingRenderer()
        let context = ImageProcessingContext(renderer: renderer)
        #expect(try ImageProcessors.Resize(width: 500).process(Self.image, context: context) == Self.image)
        #expect(try ImageProcessors.Crop(.center(width: 900, height: 900)).process(Self.image, context: context) == Self.image)
        #expect(renderer.calls.withLock { $0 }.isEmpty)
    }

    @Test func invalidParametersAreTypedErrors() {
        let context = ImageProcessingContext(renderer: RecordingRenderer())
        let bad: [any ImageProcessing] = [
            .resize(width: 0), .resize(width: 5, height: -1), .crop(x: 0, y: 0, width: 0, height: 1),
            .centerCrop(width: 1, height: 0), .roundedCorners(radius: -1), .gaussianBlur(sigma: 0), .gaussianBlur(sigma: .nan),
        ]
        for processor in bad {
            #expect(throws: ImageProcessingError.self, "\(processor.identifier)") { try processor.process(Self.image, context: context) }
        }
    }

    @Test func theCoreAloneHasNoRenderer() {
        let context = ImageProcessingContext(renderer: UnavailableImageRenderer())
        #expect(throws: ImageProcessingError.noRenderer) { try ImageProcessors.Grayscale().process(Self.image, context: context) }
    }

    @Test func compositionAppliesInOrder() throws {
        let log = Mutex<[String]>([])
        func step(_ name: String) -> ImageProcessors.Anonymous {
            .init(identifier: name) { image, _ in log.withLock { $0.append(name) }; return image }
        }
        let composition = ImageProcessors.Composition([step("one"), .composition([step("two"), step("three")])])
        _ = try composition.process(Self.image, context: ImageProcessingContext(renderer: UnavailableImageRenderer()))
        #expect(log.withLock { $0 } == ["one", "two", "three"])
    }
}
