import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches the original (encoded) bytes of an image: from the disk cache when the entry may be
/// served, else over the network (revalidating a stale entry with its validators), validated as
/// an image and stored back. This is the seam between ``ImagePipeline`` and the loading layer.
public protocol DataFetching: Sendable {
    /// Fetches the bytes for `request`.
    ///
    /// - Parameters:
    ///   - request: what to fetch and how the caches may be used.
    ///   - progress: called as body bytes arrive from the network (not for disk hits).
    /// - Throws: ``DataLoadingError`` (``DataLoadingError/notCached`` for a cache-only miss), or
    ///   `CancellationError`.
    func fetchData(
        for request: DataFetchRequest,
        progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> FetchedData
}

/// One fetch of original bytes.
public struct DataFetchRequest: Sendable {
    /// The HTTP (or file/data URL) request to send on a miss.
    public var urlRequest: URLRequest
    /// The key of the entry in the disk cache (the URL string by default; see the pipeline's
    /// cache-key hook).
    public var cacheKey: String
    /// The priority of the transfer; it can change while queued.
    public var priority: PriorityHandle
    /// Skip the disk cache read (still store the result unless ``storesToDisk`` is false).
    public var ignoresCachedData: Bool
    /// Never use the network; fail with ``DataLoadingError/notCached`` on a miss.
    public var isCacheOnly: Bool
    /// Whether a network result is written to the disk cache.
    public var storesToDisk: Bool
    /// A per-request hook run on the network request before it is sent (after the loader's
    /// own); `nil` by default. Added by the loading layer.
    public var requestModifier: RequestModifier? = nil

    /// Creates a fetch request; defaults: normal priority, disk read and write allowed.
    public init(
        urlRequest: URLRequest, cacheKey: String, priority: PriorityHandle = PriorityHandle(.normal),
        ignoresCachedData: Bool = false, isCacheOnly: Bool = false, storesToDisk: Bool = true
    ) {
        self.urlRequest = urlRequest
        self.cacheKey = cacheKey
        self.priority = priority
        self.ignoresCachedData = ignoresCachedData
        self.isCacheOnly = isCacheOnly
        self.storesToDisk = storesToDisk
    }
}

/// The result of a ``DataFetching`` fetch.
public struct FetchedData: Sendable {
    /// Where the bytes came from.
    public enum Source: String, Sendable, Hashable {
        /// A disk-cache entry served without any request.
        case disk
        /// A disk-cache entry confirmed by the server (HTTP 304).
        case revalidated
        /// A full network download (or a file/data URL read).
        case network
    }

    /// The encoded bytes, validated as an image.
    public var data: Data
    /// Where they came from.
    public var source: Source
    /// The response, for network and revalidated results.
    public var response: URLResponse?
    /// The metadata stored (or to be stored) with the bytes.
    public var metadata: DataCacheMetadata

    /// Creates a result.
    public init(data: Data, source: Source, response: URLResponse? = nil, metadata: DataCacheMetadata = DataCacheMetadata()) {
        self.data = data
        self.source = source
        self.response = response
        self.metadata = metadata
    }
}
