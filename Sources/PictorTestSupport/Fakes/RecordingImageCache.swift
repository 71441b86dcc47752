import Foundation
import PictorCore
import Synchronization

/// An unbounded ``/PictorCore/ImageCaching`` that records every call: hits, misses, stores and removals.
public final class RecordingImageCache: ImageCaching, Sendable {
    private struct State {
        var images: [ImageCacheKey: Image] = [:]
        var hits = 0
        var misses = 0
        var storedKeys: [ImageCacheKey] = []
        var removals = 0
    }
    private let state = Mutex(State())

    /// Creates an empty cache.
    public init() {}

    /// Lookups that found an image.
    public var hitCount: Int { state.withLock { $0.hits } }
    /// Lookups that found nothing.
    public var missCount: Int { state.withLock { $0.misses } }
    /// Keys stored, in order (repeats included).
    public var storedKeys: [ImageCacheKey] { state.withLock { $0.storedKeys } }
    /// Calls of ``removeImage(for:)``.
    public var removalCount: Int { state.withLock { $0.removals } }
    /// Number of entries held.
    public var count: Int { state.withLock { $0.images.count } }
    /// The image stored for `key`, without counting a hit or a miss.
    public func peek(_ key: ImageCacheKey) -> Image? { state.withLock { $0.images[key] } }

    /// The stored image, counting a hit or a miss.
    public func image(for key: ImageCacheKey) -> Image? {
        state.withLock { s in
            let image = s.images[key]
            if image == nil { s.misses += 1 } else { s.hits += 1 }
            return image
        }
    }

    /// Stores `image` (no limits) and records the key.
    public func storeImage(_ image: Image, for key: ImageCacheKey) {
        state.withLock { s in
            s.images[key] = image
            s.storedKeys.append(key)
        }
    }

    /// Removes the entry and counts the removal.
    public func removeImage(for key: ImageCacheKey) {
        state.withLock { s in
            s.images[key] = nil
            s.removals += 1
        }
    }

    /// Removes every entry (counters are kept).
    public func removeAll() { state.withLock { $0.images.removeAll() } }
}
