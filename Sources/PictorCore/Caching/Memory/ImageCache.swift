import Foundation

/// The default memory cache for decoded images: an LRU ``MemoryCache`` keyed by
/// ``ImageCacheKey`` whose cost is each image's decoded size, ``Image/cost`` (bytes per row ×
/// height × decoded frames).
///
/// ```swift
/// let cache = ImageCache(configuration: .init(costLimit: 256 << 20))
/// cache.storeImage(image, for: ImageCacheKey("https://example.org/a.jpg|256"))
/// let hit = cache.image(for: ImageCacheKey("https://example.org/a.jpg|256"))
/// ```
///
/// - Important: Thread-safe; share one instance (for example ``shared``) across a process.
public final class ImageCache: ImageCaching, Sendable {
    /// The process-wide cache with ``Configuration/default`` limits.
    public static let shared = ImageCache()

    /// The underlying generic cache: limits, statistics, trimming and TTL per entry.
    public let storage: MemoryCache<ImageCacheKey, Image>

    /// Creates an empty cache.
    ///
    /// - Parameters:
    ///   - configuration: Limits; ``Configuration/default`` by default.
    ///   - clock: The time source for TTLs; ``MonotonicCacheClock`` by default.
    public init(configuration: Configuration = .default, clock: any CacheClock = MonotonicCacheClock()) {
        storage = MemoryCache(costLimit: configuration.costLimit, countLimit: configuration.countLimit,
                              entryCostLimit: configuration.entryCostLimit, ttl: configuration.ttl,
                              clock: clock)
        if configuration.trimsOnMemoryPressure { MemoryPressureMonitor.shared.register(self) }
    }

    /// The image stored for `key`, or `nil`; a hit makes it the most recently used. O(1).
    public func image(for key: ImageCacheKey) -> Image? { storage.value(for: key) }

    /// Stores `image` for `key` at cost ``Image/cost`` bytes, evicting least recently used images
    /// over the limits; an image above ``Configuration/entryCostLimit`` of the cost limit is not
    /// stored. O(1) plus O(1) per eviction.
    public func storeImage(_ image: Image, for key: ImageCacheKey) {
        storage.set(image, for: key, cost: image.cost)
    }

    /// Stores `image` for `key` with its own time to live in seconds, overriding
    /// ``Configuration/ttl``.
    public func storeImage(_ image: Image, for key: ImageCacheKey, ttl: Double) {
        storage.set(image, for: key, cost: image.cost, ttl: ttl)
    }

    /// Removes the image for `key`, if any. O(1).
    public func removeImage(for key: ImageCacheKey) { storage.removeValue(for: key) }

    /// Removes every image.
    public func removeAll() { storage.removeAll() }

    /// Evicts every image whose time to live has passed.
    public func removeExpired() { storage.removeExpired() }

    /// Evicts least recently used images until they hold at most `cost` bytes.
    public func trim(toCost cost: Int) { storage.trim(toCost: cost) }

    /// Evicts least recently used images until at most `count` remain.
    public func trim(toCount count: Int) { storage.trim(toCount: count) }

    /// Frees memory on the application's pressure signal; see ``MemoryCache/handleMemoryPressure(_:)``.
    public func handleMemoryPressure(_ level: MemoryPressureLevel) { storage.handleMemoryPressure(level) }

    /// Hits, misses, evictions by reason, and current cost (bytes) and count.
    public var statistics: MemoryCacheStatistics { storage.statistics }

    /// Bytes held by the cached images.
    public var totalCost: Int { storage.totalCost }

    /// Number of cached images.
    public var count: Int { storage.count }
}
