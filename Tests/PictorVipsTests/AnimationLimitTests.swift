import Foundation
import PictorCore
import PictorVips
import Testing

@Suite("Animation memory limit")
struct AnimationLimitTests {
    @Test func allFramesCountAgainstTheLimitTogether() throws {
        guard Corpus.isAvailable else { return }
        let data = try Corpus.data("pillow/iss634.gif")  // 245×245, 42 frames: 2,521,050 pixels in all
        #expect(throws: ImageDecodingError.tooManyPixels(width: 245, height: 245 * 42, limit: 1_000_000)) {
            try ImageDecoderRegistry.vips.decode(data, options: .init(allFrames: true, maximumPixelCount: 1_000_000))
        }
        // The first frame alone fits.
        #expect(try ImageDecoderRegistry.vips.decode(data, options: .init(maximumPixelCount: 1_000_000)).frames.count == 1)
    }
}
