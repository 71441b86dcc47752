import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Pictor's full data loader: coalescing, priorities, bounded concurrency, validation, limits,
/// retries, redirects and request modifiers, on top of a transport (``URLSessionDataLoader``
/// by default).
///
/// ```swift
/// let loader = DataLoader { $0.maximumConcurrentRequests = 4 }
/// let (data, response) = try await loader.data(for: URLRequest(url: url))
/// ```
///
/// - **Coalescing**: identical requests (same method, URL, headers after the modifiers, and
///   body) share one transfer. Each caller gets its own progress and result; a cancelled caller
///   gets `CancellationError` at once while the others continue; the transfer stops when its
///   last caller cancels.
/// - **Scheduling**: at most ``Configuration/maximumConcurrentRequests`` transfers run; waiting
///   ones start highest priority first (the highest among a transfer's callers, read when a
///   slot frees up, so ``PriorityHandle/update(_:)`` works while queued).
/// - **Validation**: a final status in 200..<300 other than 206 (any other is ``DataLoadingError/statusCode(_:)``,
///   its body dropped); a body no shorter than its `Content-Length`, not empty, and whose first
///   bytes are a known image format whatever the `Content-Type`. A `304` to a conditional
///   request (`If-None-Match` / `If-Modified-Since`) is returned as is, with an empty body.
/// - **Limits**: ``Configuration/maximumResponseSize`` stops the transfer as soon as the
///   `Content-Length` or the streamed bytes exceed it; ``Configuration/timeout`` is one overall
///   deadline for the request, every retry and backoff wait included.
/// - **Redirects**: followed here, up to ``Configuration/maximumRedirects`` with loop detection,
///   only `http` → `http`/`https` and `https` → `https` (never to `file:`/`data:`, never a
///   downgrade to `http`): see ``DataLoadingError/redirectNotAllowed(fromScheme:toScheme:)``.
/// - **Streaming**: while the transfer runs, `didReceiveChunk` gets progress with empty chunks;
///   the validated body is delivered as one final chunk, so callers never see bytes of a failed
///   or retried attempt.
///
/// - Important: thread-safe; share one loader.
public final class DataLoader: DataLoading, Sendable {
    /// The configuration the loader was created with.
    public let configuration: Configuration
    /// The transport that performs single attempts.
    public let transport: any DataLoading
    let scheduler: RequestScheduler
    let failedURLs: FailedURLMemory?
    let state = Mutex(State())

    struct State {
        var transfers: [Int: TransferState] = [:]
        var byKey: [TransferKey: Int] = [:]
        var subscriberTransfer: [Int: Int] = [:]
        var nextID = 0
    }

    struct TransferState {
        var key: TransferKey
        var subscribers: [Int: Subscriber] = [:]
        var task: Task<Void, Never>?
    }

    struct Subscriber {
        var priority: PriorityHandle
        var didReceiveChunk: @Sendable (Data, TransferProgress) -> Void
        var continuation: CheckedContinuation<(Data, URLResponse), any Error>
    }

    /// Creates a loader.
    ///
    /// - Parameters:
    ///   - transport: performs single attempts; by default a ``URLSessionDataLoader`` that does
    ///     not follow redirects itself (this loader follows them, with its limit and loop check).
    ///   - configuration: see ``Configuration``.
    public init(transport: (any DataLoading)? = nil, configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.transport = transport ?? {
            var c = URLSessionDataLoader.Configuration()
            c.followsRedirects = false
            c.maximumConnectionsPerHost = max(6, configuration.maximumConcurrentRequests)
            return URLSessionDataLoader(configuration: c)
        }()
        self.scheduler = RequestScheduler(limit: configuration.maximumConcurrentRequests)
        self.failedURLs = configuration.failedURLPolicy.map(FailedURLMemory.init(policy:))
    }

    /// Creates a loader with the default transport, configured by `configure`.
    public convenience init(_ configure: (inout Configuration) -> Void) {
        var configuration = Configuration()
        configure(&configuration)
        self.init(configuration: configuration)
    }

    /// Loads `request` at normal priority; see ``loadData(for:options:didReceiveChunk:)``.
    public func loadData(
        for request: URLRequest,
        didReceiveChunk: @escaping @Sendable (_ chunk: Data, _ progress: TransferProgress) -> Void
    ) async throws -> URLResponse {
        try await loadData(for: request, options: DataLoadOptions(), didReceiveChunk: didReceiveChunk)
    }

    /// Loads `request`, sharing the transfer with identical requests in flight.
    ///
    /// - Parameters:
    ///   - request: the request; its `timeoutInterval` is the transport's idle timeout (lowered
    ///     to the time left before the overall deadline).
    ///   - options: priority and a per-request modifier (run after the loader's).
    ///   - didReceiveChunk: progress with empty chunks while loading, then the validated body
    ///     as one chunk.
    /// - Returns: the final response (after redirects).
    /// - Throws: ``DataLoadingError`` (`statusCode`, `emptyBody`, `notAnImage`, `truncated`,
    ///   `responseTooLarge`, `timedOut`, `idleTimeout`, `tooManyRedirects`, `redirectNotAllowed`,
    ///   `unsupportedURL`, `malformedDataURL`, `knownFailure`, `transport`), `CancellationError`,
    ///   or what a request modifier throws.
    public func loadData(
        for request: URLRequest,
        options: DataLoadOptions,
        didReceiveChunk: @escaping @Sendable (_ chunk: Data, _ progress: TransferProgress) -> Void
    ) async throws -> URLResponse {
        let request = try await prepare(request, options: options)
        let key = TransferKey(request)
        if let status = failedURLs?.status(for: key.url) { throw DataLoadingError.knownFailure(statusCode: status) }
        let subscriberID = state.withLock { s -> Int in defer { s.nextID += 1 }; return s.nextID }
        let (data, response) = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                join(key: key, request: request, subscriberID: subscriberID,
                     subscriber: Subscriber(priority: options.priority, didReceiveChunk: didReceiveChunk, continuation: continuation))
            }
        } onCancel: {
            leave(subscriberID)
        }
        if !data.isEmpty {
            let size = Int64(data.count)
            didReceiveChunk(data, TransferProgress(completed: size, total: size))
        }
        return response
    }

    /// Transfers running now.
    public var runningCount: Int { scheduler.runningCount }
    /// Transfers waiting for a slot.
    public var waitingCount: Int { scheduler.waitingCount }

    /// Callers waiting on a transfer (for tests).
    package var callerCount: Int { state.withLock { $0.subscriberTransfer.count } }

    /// Forgets every remembered failed URL.
    public func removeAllFailedURLs() { failedURLs?.removeAll() }

    /// Applies the modifiers and the default `Accept` header.
    private func prepare(_ request: URLRequest, options: DataLoadOptions) async throws -> URLRequest {
        var request = request
        if let modifier = configuration.requestModifier { request = try await modifier(request) }
        if let modifier = options.requestModifier { request = try await modifier(request) }
        if let accept = configuration.acceptHeader, request.value(forHTTPHeaderField: "Accept") == nil,
           let scheme = request.url?.scheme?.lowercased(), scheme == "http" || scheme == "https" {
            request.setValue(accept, forHTTPHeaderField: "Accept")
        }
        guard let scheme = request.url?.scheme?.lowercased(), ["http", "https", "file", "data"].contains(scheme) else {
            throw DataLoadingError.unsupportedURL
        }
        return request
    }
}

/// What makes two requests identical for coalescing: method, URL, headers, body.
struct TransferKey: Hashable, Sendable {
    var url: String
    var method: String
    var headers: [String]
    var body: Data?

    init(_ request: URLRequest) {
        url = request.url?.absoluteString ?? ""
        method = request.httpMethod ?? "GET"
        headers = (request.allHTTPHeaderFields ?? [:]).map { "\($0.key.lowercased()):\($0.value)" }.sorted()
        body = request.httpBody
    }
}
