import Foundation
import PictorCore
import Synchronization

/// A ``/PictorCore/DataCaching`` fake that keeps entries in a dictionary and counts calls.
///
/// Reads, writes and metadata updates take effect at once (read-your-writes) and are counted,
/// so tests can check that nothing was written (for example for a `no-store` response).
///
/// ```swift
/// let cache = InMemoryDataCache()
/// let pipeline = ImagePipeline(configuration: ImagePipeline.Configuration(
///     dataLoader: MockDataLoader(), decoder: CountingImageDecoder(), dataCache: cache))
/// _ = try await pipeline.data(for: ImageRequest(url: url))
/// #expect(cache.storeCount == 1)
/// ```
public final class InMemoryDataCache: DataCaching, Sendable {
    private struct State {
        var entries: [String: DataCacheEntry] = [:]
        var stores = 0
        var updates = 0
        var reads = 0
    }
    private let state = Mutex(State())

    /// Creates an empty cache.
    public init() {}

    /// The entry for `key`, or `nil`; counted in ``readCount``.
    public func entry(for key: String) -> DataCacheEntry? {
        state.withLock { s in
            s.reads += 1
            return s.entries[key]
        }
    }

    /// Whether an entry exists for `key` (not counted).
    public func contains(_ key: String) -> Bool { state.withLock { $0.entries[key] != nil } }

    /// Stores an entry; counted in ``storeCount``.
    public func store(_ data: Data, for key: String, metadata: DataCacheMetadata) {
        state.withLock { s in
            s.stores += 1
            s.entries[key] = DataCacheEntry(data: data, metadata: metadata)
        }
    }

    /// Replaces the metadata of an existing entry; counted in ``updateCount`` (also on a miss).
    public func updateMetadata(_ metadata: DataCacheMetadata, for key: String) {
        state.withLock { s in
            s.updates += 1
            s.entries[key]?.metadata = metadata
        }
    }

    /// Removes the entry for `key`.
    public func removeData(for key: String) { _ = state.withLock { $0.entries.removeValue(forKey: key) } }

    /// Removes every entry (counters are kept).
    public func removeAll() { state.withLock { $0.entries.removeAll() } }

    /// Number of ``store(_:for:metadata:)`` calls.
    public var storeCount: Int { state.withLock { $0.stores } }
    /// Number of ``updateMetadata(_:for:)`` calls.
    public var updateCount: Int { state.withLock { $0.updates } }
    /// Number of ``entry(for:)`` calls.
    public var readCount: Int { state.withLock { $0.reads } }
    /// Number of entries.
    public var count: Int { state.withLock { $0.entries.count } }
}
