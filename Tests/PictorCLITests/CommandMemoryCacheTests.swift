import Foundation
import PictorCore
import Testing
@testable import PictorCLI

/// A command's memory cache (and `pictor serve`'s) is bounded in entries as well as bytes: tiny
/// images (a 1 × 1 result per distinct cache buster) cost almost nothing against the byte limit,
/// while each entry's key and bookkeeping are real memory.
@Suite struct CommandMemoryCacheTests {
    @Test func tinyImagesUnderDistinctKeysAreBoundedInNumber() {
        let cache = ImageCache(configuration: PipelineStack.memoryCache)
        let pixel = Image(width: 1, height: 1, layout: .rgba, frames: [Image.Frame(pixels: Data(count: 4), duration: 0)], loopCount: nil)
        for i in 0..<5_000 { cache.storeImage(pixel, for: ImageCacheKey("http://origin.test/\(i)|" + String(repeating: "b", count: 200))) }
        #expect(cache.count <= 2_048, "\(cache.count) images kept")
        #expect(cache.count == 2_048, "the newest are kept")
    }
}
