import Foundation
import PictorCore
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A scripted ``DataFetching`` for pipeline tests: answers from an optional disk cache, else from
/// stubs per URL ("the network"), counting every call, and can hold network answers until a test
/// releases them.
///
/// ```swift
/// let fetcher = MockDataFetcher()
/// fetcher.stub(url, data: TestImageCodec.encode(width: 8, height: 8))
/// fetcher.gate.close()                         // hold the network
/// // … start requests …
/// await fetcher.gate.waitUntil(waiting: 1)     // the one shared download is waiting
/// fetcher.gate.open()
/// ```
///
/// Unknown URLs fail with ``DataLoadingError/statusCode(_:)`` 404, so a test never silently
/// reaches a real server.
public final class MockDataFetcher: DataFetching, Sendable {
    private struct State {
        var stubs: [String: Result<Data, DataLoadingError>] = [:]
        var progressSteps: [String: Int] = [:]
        var fetchCount = 0
        var networkCounts: [String: Int] = [:]
        var requests: [DataFetchRequest] = []
        var urlGates: [String: AsyncGate] = [:]
        var revalidating: Set<String> = []
    }

    /// The disk layer consulted before the network and written after it (when the request
    /// allows); `nil` means no disk.
    public let diskCache: (any DataCaching)?
    /// Network answers wait at this gate; open by default.
    public let gate = AsyncGate()
    private let state = Mutex(State())

    /// Creates a fetcher over an optional disk cache.
    public init(diskCache: (any DataCaching)? = nil) {
        self.diskCache = diskCache
    }

    /// Answers `url` with `data`, reporting `progressSteps` progress callbacks (default 2)
    /// before completing.
    public func stub(_ url: URL, data: Data, progressSteps: Int = 2) {
        state.withLock {
            $0.stubs[url.absoluteString] = .success(data)
            $0.progressSteps[url.absoluteString] = progressSteps
        }
    }

    /// A gate for the network answers of `url` alone, closed when first asked for (in addition
    /// to ``gate``): open it to release that URL, so tests can complete requests in any order.
    public func gate(for url: URL) -> AsyncGate {
        state.withLock { s in
            if let gate = s.urlGates[url.absoluteString] { return gate }
            let gate = AsyncGate(isOpen: false)
            s.urlGates[url.absoluteString] = gate
            return gate
        }
    }

    /// Makes disk hits of `url` "stale": each one is confirmed over the network (counted, held at
    /// the gates) and answered as ``FetchedData/Source/revalidated`` with an HTTP 304 response.
    public func setRevalidating(_ url: URL, _ revalidates: Bool = true) {
        state.withLock { s in
            if revalidates { s.revalidating.insert(url.absoluteString) } else { s.revalidating.remove(url.absoluteString) }
        }
    }

    /// Fails `url` with `error`.
    public func stub(_ url: URL, error: DataLoadingError) {
        state.withLock { $0.stubs[url.absoluteString] = .failure(error) }
    }

    /// Calls of ``fetchData(for:progress:)``.
    public var fetchCount: Int { state.withLock { $0.fetchCount } }
    /// Network transfers started, for every URL.
    public var networkRequestCount: Int { state.withLock { $0.networkCounts.values.reduce(0, +) } }
    /// Network transfers started for `url`.
    public func networkRequestCount(for url: URL) -> Int { state.withLock { $0.networkCounts[url.absoluteString] ?? 0 } }
    /// Every fetch request received, in order.
    public var requests: [DataFetchRequest] { state.withLock { $0.requests } }
    /// The live priority of the latest fetch of `url` (it follows the pipeline's changes).
    public func currentPriority(for url: URL) -> RequestPriority? {
        state.withLock { $0.requests.last { $0.urlRequest.url == url }?.priority.value }
    }

    /// Answers from ``diskCache`` unless the request ignores cached data; then, unless cache-only
    /// (``DataLoadingError/notCached``), from the stubs after passing ``gate`` and the URL's gate,
    /// reporting progress and storing the bytes when the request allows.
    ///
    /// - Throws: the stubbed ``DataLoadingError``, 404 for unknown URLs, or `CancellationError`.
    public func fetchData(
        for request: DataFetchRequest, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> FetchedData {
        let key = request.urlRequest.url?.absoluteString ?? ""
        state.withLock {
            $0.fetchCount += 1
            $0.requests.append(request)
        }
        if !request.ignoresCachedData, let entry = diskCache?.entry(for: request.cacheKey) {
            let (revalidates, urlGate) = state.withLock { s in (s.revalidating.contains(key), s.urlGates[key]) }
            guard revalidates, !request.isCacheOnly, let url = request.urlRequest.url else {
                return FetchedData(data: entry.data, source: .disk, metadata: entry.metadata)
            }
            state.withLock { $0.networkCounts[key, default: 0] += 1 }
            try await gate.pass()
            try await urlGate?.pass()
            try Task.checkCancellation()
            let response = HTTPURLResponse(url: url, statusCode: 304, httpVersion: "HTTP/1.1", headerFields: [:])
            return FetchedData(data: entry.data, source: .revalidated, response: response, metadata: entry.metadata)
        }
        if request.isCacheOnly { throw DataLoadingError.notCached }
        let (stub, steps, urlGate) = state.withLock { s in
            s.networkCounts[key, default: 0] += 1
            return (s.stubs[key], s.progressSteps[key] ?? 0, s.urlGates[key])
        }
        try await gate.pass()
        try await urlGate?.pass()
        try Task.checkCancellation()
        guard let stub else { throw DataLoadingError.statusCode(404) }
        let data = try stub.get()
        let total = Int64(data.count)
        for step in 0..<steps {
            progress(TransferProgress(completed: total * Int64(step + 1) / Int64(steps), total: total))
        }
        let metadata = DataCacheMetadata(format: ImageFormat.sniff(data))
        if request.storesToDisk { diskCache?.store(data, for: request.cacheKey, metadata: metadata) }
        let response = request.urlRequest.url.flatMap {
            HTTPURLResponse(url: $0, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "\(data.count)"])
        }
        return FetchedData(data: data, source: .network, response: response, metadata: metadata)
    }
}
