import Foundation
import Testing
@testable import PictorCore

@Suite("ImageCache")
struct ImageCacheTests {
    static func image(width: Int, height: Int, layout: Image.PixelLayout = .rgba, frames: Int = 1) -> Image {
        let bytes = Data(count: width * height * layout.bands)
        return Image(width: width, height: height, layout: layout,
                     frames: Array(repeating: Image.Frame(pixels: bytes, duration: 0.1), count: frames),
                     loopCount: frames > 1 ? 0 : nil)
    }

    @Test func costIsDecodedSizeOfEveryFrame() {
        let cache = ImageCache(configuration: .init(costLimit: 10_000_000))
        let animated = Self.image(width: 100, height: 50, layout: .rgb, frames: 4)
        cache.storeImage(animated, for: ImageCacheKey("gif"))
        #expect(cache.totalCost == 100 * 3 * 50 * 4)
        let still = Self.image(width: 10, height: 10, layout: .grayAlpha)
        cache.storeImage(still, for: ImageCacheKey("png"))
        #expect(cache.totalCost == 60_000 + 200)
        #expect(cache.image(for: ImageCacheKey("gif")) == animated)
        cache.removeImage(for: ImageCacheKey("gif"))
        #expect(cache.totalCost == 200 && cache.count == 1)
    }

    @Test func defaultEntryCostLimitIsTenPercent() {
        let cache = ImageCache(configuration: .init(costLimit: 40_000))
        cache.storeImage(Self.image(width: 10, height: 100), for: ImageCacheKey("fits"))   // 4,000
        cache.storeImage(Self.image(width: 11, height: 100), for: ImageCacheKey("big"))    // 4,400
        #expect(cache.image(for: ImageCacheKey("fits")) != nil)
        #expect(cache.image(for: ImageCacheKey("big")) == nil)
        #expect(cache.statistics.rejections == 1)
    }

    @Test func evictsByCostAndExpiresByTTL() {
        let clock = ManualCacheClock()
        let cache = ImageCache(configuration: .init(costLimit: 1_000, entryCostLimit: 1, ttl: 30), clock: clock)
        for i in 0..<5 { cache.storeImage(Self.image(width: 10, height: 10, layout: .gray), for: ImageCacheKey("\(i)")) }
        for i in 5..<10 { cache.storeImage(Self.image(width: 10, height: 10, layout: .gray), for: ImageCacheKey("\(i)"), ttl: 300) }
        cache.storeImage(Self.image(width: 10, height: 10, layout: .gray), for: ImageCacheKey("10"))
        #expect(cache.count == 10 && cache.image(for: ImageCacheKey("0")) == nil)
        clock.advance(by: 60)
        cache.removeExpired()
        #expect(cache.count == 5)
        cache.trim(toCount: 2)
        #expect(cache.count == 2)
        cache.handleMemoryPressure(.critical)
        #expect(cache.count == 0)
        cache.storeImage(Self.image(width: 1, height: 1), for: ImageCacheKey("x"))
        cache.removeAll()
        #expect(cache.count == 0 && cache.statistics.removals == 1)
    }

    @Test func worksThroughTheProtocol() {
        let caching: any ImageCaching = ImageCache(configuration: .init(costLimit: 1 << 20))
        let image = Self.image(width: 4, height: 4)
        caching.storeImage(image, for: ImageCacheKey("k"))
        #expect(caching.image(for: ImageCacheKey("k")) == image)
    }

    @Test func defaultConfigurationUsesAFifthOfAvailableMemory() {
        #expect(ImageCache.Configuration.defaultCostLimit(availableMemory: 1_000_000_000) == 200_000_000)
        let config = ImageCache.Configuration.default
        #expect(config.costLimit == ImageCache.Configuration.defaultCostLimit(availableMemory: AvailableMemory.bytes))
        #expect(config.costLimit > 0)
        #expect(config.countLimit == .max && config.entryCostLimit == 0.1 && config.ttl == nil)
        #expect(ImageCache.shared.storage.costLimit == ImageCache.shared.storage.costLimit)
    }
}
