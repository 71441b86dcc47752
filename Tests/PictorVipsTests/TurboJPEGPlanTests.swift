import Foundation
import PictorCore
@testable import PictorVips
import Testing

/// Shrink-on-load, observed: the scale at which the JPEG fast path asks libjpeg-turbo to decode.
@Suite("TurboJPEG plan")
struct TurboJPEGPlanTests {
    @Test func thumbnailsDecodeAtAReducedDCTScale() {
        // 3000×2000 to 256 px: 11.7× overall, 1/4 in the DCT (750×500), the rest by the resampler.
        let big = TurboJPEGDecoder.Plan(width: 3000, height: 2000, orientation: 1, target: .init(width: 256))
        #expect(big.outputWidth == 256 && big.outputHeight == 171)
        #expect(TurboJPEGDecoder.dctDenominator(shrink: big.shrink) == 4)
        // 1024 to 256: 4×, decoded at 1/2 (as libvips and Pillow's draft do).
        let mid = TurboJPEGDecoder.Plan(width: 1024, height: 683, orientation: 1, target: .init(width: 256, height: 256))
        #expect(TurboJPEGDecoder.dctDenominator(shrink: mid.shrink) == 2)
        // 8000 px to 64: 1/8.
        let huge = TurboJPEGDecoder.Plan(width: 8000, height: 6000, orientation: 1, target: .init(width: 64))
        #expect(TurboJPEGDecoder.dctDenominator(shrink: huge.shrink) == 8)
        // Full size and small reductions decode at 1/1.
        #expect(TurboJPEGDecoder.dctDenominator(shrink: TurboJPEGDecoder.Plan(width: 100, height: 100, orientation: 1, target: nil).shrink) == 1)
        #expect(TurboJPEGDecoder.dctDenominator(shrink: 3.9) == 1)
    }

    @Test func orientationSwapsTheSourceSideThatIsResized() {
        let plan = TurboJPEGDecoder.Plan(width: 1800, height: 1200, orientation: 6, target: .init(width: 120))
        #expect(plan.outputWidth == 120 && plan.outputHeight == 180)
        #expect(plan.resizedSourceWidth == 180 && plan.resizedSourceHeight == 120)
    }

    @Test func fillCoversThenCrops() {
        let plan = TurboJPEGDecoder.Plan(width: 400, height: 200, orientation: 1, target: .init(width: 100, height: 100, contentMode: .aspectFill))
        #expect(plan.resizedSourceWidth == 200 && plan.resizedSourceHeight == 100)
        #expect(plan.outputWidth == 100 && plan.outputHeight == 100)
    }

    @Test func orientationTransformsMapCornersLikeEXIF() {
        // 2×3 image with distinct values, one band: rows [1,2] [3,4] [5,6].
        let src: [UInt8] = [1, 2, 3, 4, 5, 6]
        let expected: [Int: ([UInt8], Int, Int)] = [
            2: ([2, 1, 4, 3, 6, 5], 2, 3), 3: ([6, 5, 4, 3, 2, 1], 2, 3), 4: ([5, 6, 3, 4, 1, 2], 2, 3),
            5: ([1, 3, 5, 2, 4, 6], 3, 2), 6: ([5, 3, 1, 6, 4, 2], 3, 2), 7: ([6, 4, 2, 5, 3, 1], 3, 2), 8: ([2, 4, 6, 1, 3, 5], 3, 2),
        ]
        for (orientation, (pixels, w, h)) in expected {
            let (out, ow, oh) = PixelResampler.orient(src, width: 2, height: 3, bands: 1, orientation: orientation)
            #expect(out == pixels && ow == w && oh == h, "orientation \(orientation): \(out)")
        }
    }
}
