import Foundation
import PictorCore
import PictorTestSupport
import Testing
@testable import PictorService

/// Options mapped onto the pipeline: sizes, crops and gravity, with the fakes' renderer.
struct ResultPlanTests {
    static func geometry(_ sw: Int, _ sh: Int, _ w: Int, _ h: Int, _ type: ResizingType, enlarge: Bool = false, gravity: Gravity = Gravity()) -> [Int] {
        let g = ResizeGeometry(sourceWidth: sw, sourceHeight: sh, width: w, height: h, type: type, enlarge: enlarge, gravity: gravity)
        return [g.scaledWidth, g.scaledHeight, g.cropX, g.cropY, g.cropWidth, g.cropHeight]
    }

    @Test func geometryFollowsImgproxy() {
        #expect(Self.geometry(640, 480, 64, 64, .fit) == [64, 48, 0, 0, 64, 48])
        #expect(Self.geometry(640, 480, 0, 48, .fit) == [64, 48, 0, 0, 64, 48])
        #expect(Self.geometry(640, 480, 64, 64, .fill) == [85, 64, 11, 0, 64, 64])
        #expect(Self.geometry(640, 480, 64, 64, .fill, gravity: Gravity(.west)) == [85, 64, 0, 0, 64, 64])
        #expect(Self.geometry(640, 480, 64, 64, .fill, gravity: Gravity(.east)) == [85, 64, 21, 0, 64, 64])
        #expect(Self.geometry(640, 480, 64, 64, .fill, gravity: Gravity(.west, xOffset: 5)) == [85, 64, 5, 0, 64, 64])
        #expect(Self.geometry(640, 480, 64, 64, .fill, gravity: Gravity(.focusPoint, xOffset: 1, yOffset: 0.5)) == [85, 64, 21, 0, 64, 64])
        #expect(Self.geometry(480, 640, 64, 64, .fill, gravity: Gravity(.south)) == [64, 85, 0, 21, 64, 64])
        // Too small to fill: no enlarging; fill-down cuts to the requested aspect ratio instead.
        #expect(Self.geometry(100, 50, 200, 200, .fill) == [100, 50, 0, 0, 100, 50])
        #expect(Self.geometry(100, 50, 200, 200, .fillDown) == [100, 50, 25, 0, 50, 50])
        #expect(Self.geometry(100, 50, 200, 200, .fill, enlarge: true) == [400, 200, 100, 0, 200, 200])
        #expect(Self.geometry(640, 480, 64, 0, .force) == [64, 480, 0, 0, 64, 480])
        #expect(Self.geometry(640, 480, 64, 64, .auto) == [85, 64, 11, 0, 64, 64])
        #expect(Self.geometry(640, 480, 32, 64, .auto) == [32, 24, 0, 0, 32, 24])
        #expect(Self.geometry(640, 480, 64, 32, .auto) == [64, 48, 0, 8, 64, 32])
    }

    @Test func sizesReachTheImage() async {
        let h = ServiceHarness()
        h.stubSource()
        let cases: [(String, Int, Int)] = [
            ("rs:fit:64:64", 64, 48), ("rs:fill:64:64", 64, 64), ("rs:force:64:64", 64, 64), ("w:100", 100, 75),
            ("h:48", 64, 48), ("rs:fit:32:32/dpr:2", 64, 48), ("rs:fill:64:64/g:noea", 64, 64), ("rs:fill-down:64:32", 64, 32),
            ("rs:auto:32:64", 32, 24), ("rs:force:64:0", 64, 480), ("rs:fit:1000:1000", 640, 480), ("rs:fit:1000:1000:1", 1000, 750),
            ("q:50", 640, 480),
        ]
        for (options, width, height) in cases {
            let response = await h.image(options)
            #expect(response.status == 200, "\(options): \(response.text)")
            #expect(response.pixelSize?.width == width && response.pixelSize?.height == height,
                    "\(options): \(String(describing: response.pixelSize))")
        }
        #expect(h.renderer.operationCounts["crop"] == 2)  // g:noea and fill-down; centred fill crops in the decoder
    }

    @Test func qualityDefaultsAndEntersTheKey() throws {
        let configuration = ImageService.Configuration(parser: try Fixture.unsigned())
        let url = try configuration.parser.parse("/_/rs:fit:64:64/\(ServiceHarness.sourcePath)")
        let plan = try ResultPlan(url, source: ServiceHarness.source, accept: nil, configuration: configuration)
        #expect(plan.quality == 80)
        #expect(plan.format == nil)
        #expect(plan.request.thumbnail == ThumbnailOptions(width: 64, height: 64))
        let pipeline = ImagePipeline(configuration: .init(dataLoader: MockDataLoader(), decoder: CountingImageDecoder()))
        let key = pipeline.encodedResultKey(for: plan.request, format: plan.format, quality: plan.quality)
        #expect(key.hasSuffix("|encoded:auto:q80"))
        #expect(key.contains(url.options.canonicalString))
        #expect(key.contains(ServiceHarness.source.absoluteString))
    }
}
