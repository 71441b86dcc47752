import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Pictor's ``DataFetching``: the disk cache first (with HTTP freshness and revalidation under
/// the default ``CachePolicy/http`` policy), then the network through a ``DataLoading``.
///
/// ```swift
/// let fetcher = ImageDataFetcher(loader: DataLoader(), cache: diskCache)
/// let fetched = try await fetcher.fetchData(
///     for: DataFetchRequest(urlRequest: URLRequest(url: url), cacheKey: url.absoluteString)) { _ in }
/// // fetched.source: .disk, .revalidated or .network
/// ```
///
/// Only `http` and `https` results are written to the cache (`file:` and `data:` URLs are
/// read each time). Only validated images reach the cache: the loader rejects non-2xx
/// statuses, empty and truncated bodies and non-images before anything is stored.
public final class ImageDataFetcher: DataFetching, Sendable {
    /// The network loader.
    public let loader: any DataLoading
    /// The disk cache, if any.
    public let cache: (any DataCaching)?
    /// The configuration.
    public let configuration: Configuration

    /// Creates a fetcher.
    ///
    /// - Parameters:
    ///   - loader: loads on a miss (a ``DataLoader`` for coalescing, validation and retries).
    ///   - cache: where original bytes are kept; `nil` for none.
    ///   - configuration: cache policy and freshness settings.
    public init(loader: any DataLoading, cache: (any DataCaching)?, configuration: Configuration = Configuration()) {
        self.loader = loader
        self.cache = cache
        self.configuration = configuration
    }

    /// Fetches the bytes for `request`; see ``DataFetching/fetchData(for:progress:)``.
    ///
    /// - Throws: ``DataLoadingError/notCached`` for a cache-only miss; the loader's
    ///   ``DataLoadingError``s; `CancellationError`.
    public func fetchData(
        for request: DataFetchRequest,
        progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> FetchedData {
        let now = configuration.now()
        let cached = request.ignoresCachedData ? nil : cache?.entry(for: request.cacheKey)
        if let cached, request.isCacheOnly || configuration.cachePolicy == .ignoreHTTPHeaders
            || HTTPFreshness.isFresh(cached.metadata, now: now) {
            return FetchedData(data: cached.data, source: .disk, metadata: cached.metadata)
        }
        if request.isCacheOnly { throw DataLoadingError.notCached }

        var urlRequest = request.urlRequest
        let validators = cached.flatMap { entry -> DataCacheEntry? in
            entry.metadata.etag != nil || entry.metadata.lastModified != nil ? entry : nil
        }
        if let validators {
            if let etag = validators.metadata.etag { urlRequest.setValue(etag, forHTTPHeaderField: "If-None-Match") }
            if let lastModified = validators.metadata.lastModified {
                urlRequest.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
            }
        }
        let buffer = ByteAccumulator()
        let response: URLResponse
        do {
            let options = DataLoadOptions(priority: request.priority, requestModifier: request.requestModifier)
            response = try await loader.loadData(for: urlRequest, options: options) { chunk, p in
                buffer.append(chunk)
                progress(p)
            }
        } catch let error as DataLoadingError {
            if let cached, servesStale(cached, after: error) {
                return FetchedData(data: cached.data, source: .disk, metadata: cached.metadata)
            }
            throw error
        }
        let finished = configuration.now()
        if let validators, (response as? HTTPURLResponse)?.statusCode == 304 {
            let metadata = HTTPFreshness.refreshed(
                validators.metadata, with: response, now: finished, heuristicCap: configuration.maximumHeuristicLifetime)
            cache?.updateMetadata(metadata, for: request.cacheKey)
            return FetchedData(data: validators.data, source: .revalidated, response: response, metadata: metadata)
        }
        let data = buffer.data
        guard (response as? HTTPURLResponse).map({ (200..<300).contains($0.statusCode) }) ?? true, !data.isEmpty else {
            // A loader that does not validate (a bare transport) answered 304 or an error.
            throw (response as? HTTPURLResponse).map { DataLoadingError.statusCode($0.statusCode) } ?? DataLoadingError.emptyBody
        }
        let metadata = HTTPFreshness.metadata(
            for: response, data: data, now: finished, heuristicCap: configuration.maximumHeuristicLifetime)
        if shouldStore(request, response: response, metadata: metadata) {
            cache?.store(data, for: request.cacheKey, metadata: metadata)
        }
        return FetchedData(data: data, source: .network, response: response, metadata: metadata)
    }

    /// Whether a network result goes to disk: allowed by the request, an http(s) URL, and
    /// (under the HTTP policy) no `no-store`.
    private func shouldStore(_ request: DataFetchRequest, response: URLResponse, metadata: DataCacheMetadata) -> Bool {
        guard request.storesToDisk, response is HTTPURLResponse else { return false }
        if configuration.cachePolicy == .http, CacheControl(metadata.cacheControl).noStore { return false }
        return true
    }

    /// Whether a stale entry may stand in after `error` (RFC 9111 §4.2.4).
    private func servesStale(_ entry: DataCacheEntry, after error: DataLoadingError) -> Bool {
        guard configuration.servesStaleOnError, error.isTransient else { return false }
        let control = CacheControl(entry.metadata.cacheControl)
        return !control.mustRevalidate && !control.noCache
    }
}
