import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Pictor's network loader: priorities, bounded concurrency, validation, size cap, deadline,
/// retries and redirects, over a ``DataTransport`` that performs single exchanges.
///
/// ```swift
/// let loader = DataLoader(transport: CurlTransport()) { $0.maximumConcurrentRequests = 8 }
/// let (data, response) = try await loader.data(for: URLRequest(url: url))
/// ```
///
/// It knows nothing of caches: ``ImagePipeline``'s fetch stage decides when the network is
/// asked, adds validators to revalidate, and shares one load between every caller of the same
/// bytes.
///
/// - **Scheduling**: at most ``Configuration/maximumConcurrentRequests`` transfers run; waiting
///   ones start highest priority first (a pipeline job's priority is followed while it waits).
/// - **Validation**: a final status in 200..<300 other than 206 (any
///   other is ``DataLoadingError/statusCode(_:)``, its body dropped); a `304` only to a
///   conditional request, returned with an empty body; a body that is not empty, not above
///   the size cap, and whose first bytes are a known image format whatever the `Content-Type`.
/// - **Limits**: ``Configuration/maximumResponseSize`` stops an HTTP transfer as soon as the
///   `Content-Length` or the decoded bytes exceed it (`file:` reads are not capped);
///   ``Configuration/timeout`` is one overall deadline for the request, every retry and backoff
///   wait included; ``Configuration/connectTimeout`` and ``Configuration/idleTimeout`` bound
///   each attempt.
/// - **Redirects**: followed here (not by the transport), up to
///   ``Configuration/maximumRedirects`` with loop detection, only `http` → `http`/`https` and
///   `https` → `https`, and only to targets ``Configuration/redirectFilter`` allows. For the
///   pipeline's fetch stage, each allowed target is first looked up in its cache, under its
///   own key: a fresh entry ends the load at that hop, a stale one makes the target's request
///   conditional on its validators.
/// - **URLs**: spaces and non-ASCII characters are percent-encoded once; `%XX` escapes are kept.
///
/// - Important: thread-safe; share one loader (its transport keeps connections alive).
public final class DataLoader: DataLoading, Sendable {
    /// The configuration the loader was created with.
    public let configuration: Configuration
    /// The transport that performs single HTTP exchanges.
    public let transport: any DataTransport
    let slots: PriorityQueue
    let failedURLs: FailedURLMemory?

    /// Creates a loader.
    ///
    /// - Parameters:
    ///   - transport: performs single exchanges; by default a ``URLSessionTransport``. The
    ///     `Pictor` product's pipelines and the CLI use `CurlTransport` (libcurl) instead.
    ///   - configuration: see ``Configuration``.
    public init(transport: (any DataTransport)? = nil, configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.transport = transport ?? URLSessionTransport(configuration: {
            var c = URLSessionTransport.Configuration()
            c.maximumConnectionsPerHost = max(6, configuration.maximumConcurrentRequests)
            return c
        }())
        self.slots = PriorityQueue(
            width: configuration.maximumConcurrentRequests, backgroundLimit: configuration.maximumConcurrentBackgroundRequests)
        self.failedURLs = configuration.failedURLPolicy.map(FailedURLMemory.init(policy:))
    }

    /// Creates a loader over `transport` (default ``URLSessionTransport``), configured by `configure`.
    ///
    /// - Parameters:
    ///   - transport: performs single exchanges; a ``URLSessionTransport`` when `nil` (the
    ///     default).
    ///   - configure: changes to the default ``Configuration``.
    public convenience init(transport: (any DataTransport)? = nil, _ configure: (inout Configuration) -> Void) {
        var configuration = Configuration()
        configure(&configuration)
        self.init(transport: transport, configuration: configuration)
    }

    /// Loads `request`: waits for a slot, then attempts, follows redirects and retries.
    ///
    /// - Parameters:
    ///   - request: the request; `http`, `https`, `file` or `data` URL.
    ///   - options: priority (followed while waiting for a slot) and progress.
    /// - Returns: the validated body and the final response (after redirects); an empty body
    ///   with a `304` response for a conditional request the server confirmed.
    /// - Throws: ``DataLoadingError`` (`statusCode`, `emptyBody`, `notAnImage`, `truncated`,
    ///   `responseTooLarge`, `timedOut`, `idleTimeout`, `tooManyRedirects`, `redirectNotAllowed`,
    ///   `redirectRefused`, `unsupportedURL`, `malformedDataURL`, `knownFailure`, `transport`),
    ///   `CancellationError`, or what the request modifier throws.
    nonisolated(nonsending) public func loadData(for request: URLRequest, options: DataLoadOptions) async throws -> (Data, URLResponse) {
        let result = try await load(request, options: options)
        return (result.data, result.response)
    }

    /// ``loadData(for:options:)`` with the redirects it followed, as the pipeline's fetch stage
    /// asks for it: the response stays the transport's head, so that no `HTTPURLResponse` is
    /// built unless someone reads ``DataLoadResult/response``.
    ///
    /// - Parameters:
    ///   - request: the request to send (`http`, `https`, `file` or `data` URL).
    ///   - options: priority and progress.
    /// - Returns: the validated body (empty for a `304` to a conditional request), the final
    ///   response and the redirect responses followed.
    /// - Throws: as ``loadData(for:options:)``.
    nonisolated(nonsending) public func load(_ request: URLRequest, options: DataLoadOptions) async throws -> DataLoadResult {
        let request = try await prepare(request)
        let url = request.url!
        let scheme = url.scheme?.lowercased() ?? ""
        let local: (Data, URLResponse)?
        switch scheme {
        case "file": local = try await LocalDataLoader.loadFile(url, progress: options.progress)
        case "data": local = try LocalDataLoader.loadDataURL(url, progress: options.progress)
        default: local = nil
        }
        if let (data, response) = local {
            // Local bytes are validated like a download, but not held to the HTTP size cap.
            try ResponseValidation.checkLocalBody(data, scheme: scheme)
            return DataLoadResult(data: data, loaded: LoadedResponse(response), redirects: [])
        }
        if let status = failedURLs?.status(for: url.absoluteString) { throw DataLoadingError.knownFailure(statusCode: status) }
        let outcome = try await slots.withSlot(priority: options.priorityHandle) {
            try await performWithRetries(
                request, progress: options.progress, redirectTargets: options.redirectTargets, bodyReceived: options.bodyReceived)
        }
        var result = DataLoadResult(data: outcome.data, loaded: LoadedResponse(head: outcome.head), redirects: outcome.redirects)
        result.endsAtCachedTarget = outcome.endsAtCachedTarget
        return result
    }

    /// Transfers running now.
    public var runningCount: Int { slots.runningCount }
    /// Transfers waiting for a slot.
    public var waitingCount: Int { slots.waitingCount }

    /// Forgets every remembered failed URL.
    public func removeAllFailedURLs() { failedURLs?.removeAll() }

    /// Applies the modifier, the URL's percent-encoding and the default `Accept` header.
    nonisolated(nonsending) private func prepare(_ request: URLRequest) async throws -> URLRequest {
        var request = request
        if let modifier = configuration.requestModifier { request = try await modifier(request) }
        guard let url = request.url, let scheme = url.scheme?.lowercased(),
              ["http", "https", "file", "data"].contains(scheme) else {
            throw DataLoadingError.unsupportedURL
        }
        guard scheme == "http" || scheme == "https" else { return request }
        let encoded = URLNormalization.percentEncoded(url.absoluteString)
        if encoded != url.absoluteString {
            guard let normalized = URL(string: encoded) else { throw DataLoadingError.unsupportedURL }
            request.url = normalized
        }
        return request
    }
}
