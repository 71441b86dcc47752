import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Loads the bytes of one request: the network seam of ``ImagePipeline``.
///
/// ``DataLoader`` is Pictor's implementation (validation, redirects, retries, deadline, size
/// cap, priorities) over a ``DataTransport``; tests use a fake. The pipeline's fetch stage
/// decides whether the network is asked at all (memory, disk, then the network) and shares one
/// load between every caller of the same bytes, so a loader needs no cache and no coalescing.
public protocol DataLoading: Sendable {
    /// Loads `request` and returns its whole body.
    ///
    /// - Parameters:
    ///   - request: the request to send (`http`, `https`, `file` or `data` URL).
    ///   - options: priority and progress.
    /// - Returns: the validated body and the final response. A `304 Not Modified` answer to a
    ///   conditional request (`If-None-Match` / `If-Modified-Since`) is returned with an empty
    ///   body.
    /// - Throws: ``DataLoadingError``, or `CancellationError` when the task was cancelled.
    nonisolated(nonsending) func loadData(for request: URLRequest, options: DataLoadOptions) async throws -> (Data, URLResponse)

    /// Loads `request` for the pipeline's fetch stage: the body, the final response and the
    /// redirect responses followed on the way, whose own caching headers limit what is stored
    /// under the URL asked for (RFC 9111 §3).
    ///
    /// The default implementation calls ``loadData(for:options:)`` and judges the status as
    /// ``DataLoader`` does (2xx other than 206; 304 only to a conditional request; anything else
    /// is ``DataLoadingError/statusCode(_:)``, an empty 2xx body ``DataLoadingError/emptyBody``).
    /// Since it cannot see the redirects the loader followed, a final URL other than the one
    /// asked for counts as one temporary redirect without caching headers: the entry is stored
    /// stale, and asked about again on its next use. ``DataLoader`` implements it with the
    /// redirects it followed.
    ///
    /// - Parameters:
    ///   - request: the request to send.
    ///   - options: priority and progress.
    /// - Throws: ``DataLoadingError``, or `CancellationError`.
    ///
    /// Both requirements are `nonisolated(nonsending)`: they run on their caller's executor, so
    /// that a call from the fetch stage costs no executor check at entry and return. A
    /// conformance declared plain `async` still satisfies them, and runs on the global executor.
    nonisolated(nonsending) func load(_ request: URLRequest, options: DataLoadOptions) async throws -> DataLoadResult
}

extension DataLoading {
    /// The default ``DataLoading/load(_:options:)``: ``loadData(for:options:)``, the status
    /// judged, unknown redirects accounted for.
    nonisolated(nonsending) public func load(_ request: URLRequest, options: DataLoadOptions) async throws -> DataLoadResult {
        let (data, response) = try await loadData(for: request, options: options)
        let loaded = LoadedResponse(response)
        if let head = loaded.head {
            switch ResponseValidation.status(of: head, for: request) {
            case .content: if data.isEmpty { throw DataLoadingError.emptyBody }
            case .notModified: break
            case .redirect, .failure: throw DataLoadingError.statusCode(head.statusCode)
            }
        } else if data.isEmpty {
            throw DataLoadingError.emptyBody
        }
        var redirects: [HTTPResponseHead] = []
        if let asked = request.url, let final = response.url, final.absoluteString != asked.absoluteString {
            redirects = [HTTPResponseHead(url: asked, statusCode: 302)]
        }
        return DataLoadResult(data: data, loaded: loaded, redirects: redirects)
    }
}

/// What one load gives the pipeline's fetch stage: the body, the final response, and the
/// redirect responses followed on the way.
public struct DataLoadResult: Sendable {
    /// The body: validated, empty for a `304` to a conditional request.
    public var data: Data
    /// The final response (for ``DataLoader``, built from the transport's head on first read).
    public var response: URLResponse { loaded.urlResponse }
    /// The redirect responses followed before the final one, in order; empty when none.
    public var redirects: [HTTPResponseHead]
    /// The final response as the stages carry it.
    package let loaded: LoadedResponse
    /// Whether the load ended at a redirect whose target's own cache entry answers
    /// (``RedirectTargetAnswer/cached``): ``data`` is empty, the final response is the last
    /// redirect's, and the target was not requested.
    var endsAtCachedTarget = false

    /// A result made by a custom ``DataLoading``.
    ///
    /// - Parameters:
    ///   - data: the body (empty for a `304`).
    ///   - response: the final response.
    ///   - redirects: the redirect responses followed, in order; empty by default.
    public init(data: Data, response: URLResponse, redirects: [HTTPResponseHead] = []) {
        self.init(data: data, loaded: LoadedResponse(response), redirects: redirects)
    }

    package init(data: Data, loaded: LoadedResponse, redirects: [HTTPResponseHead]) {
        self.data = data
        self.loaded = loaded
        self.redirects = redirects
    }
}

extension DataLoading {
    /// Loads `request` at normal priority.
    ///
    /// - Parameters:
    ///   - request: the request to send.
    ///   - progress: called as bytes arrive; `nil` (the default) for none.
    /// - Throws: ``DataLoadingError``, or `CancellationError`.
    public func data(
        for request: URLRequest, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> (Data, URLResponse) {
        try await loadData(for: request, options: DataLoadOptions(progress: progress))
    }
}

/// Per-request options of a load, beside the `URLRequest` itself.
public struct DataLoadOptions: Sendable {
    /// The priority of the transfer while it waits for a slot. `.normal` by default.
    public var priority: RequestPriority {
        get { handle?.value ?? fixedPriority }
        set { fixedPriority = newValue; handle = nil }
    }
    /// Called as body bytes arrive, on any thread; `nil` by default.
    public var progress: (@Sendable (TransferProgress) -> Void)?
    /// Called with each piece of a successful (2xx) response's decoded body as it arrives, on
    /// any thread: `offset` is where the piece starts in the body, and `0` starts a new body
    /// (a retry, or a redirect's target), so earlier pieces must be forgotten. Keep it cheap.
    /// The pipeline sets it for previews; a loader that cannot stream ignores it (no previews).
    /// `nil` by default.
    public var bodyReceived: (@Sendable (_ offset: Int64, _ piece: Data) -> Void)?

    private var fixedPriority: RequestPriority
    /// The live priority of the pipeline job behind this load: it changes while the load
    /// waits, and a loader that queues follows it.
    package var handle: PriorityHandle?
    /// Asked for each redirect target before it is requested (the fetch stage's cache of the
    /// target under its own key); `nil` requests every target.
    var redirectTargets: RedirectTargetLookup?

    /// Creates options; defaults: normal priority, no progress.
    public init(priority: RequestPriority = .normal, progress: (@Sendable (TransferProgress) -> Void)? = nil) {
        self.fixedPriority = priority
        self.progress = progress
    }

    /// Options whose priority follows `handle`.
    package init(handle: PriorityHandle, progress: (@Sendable (TransferProgress) -> Void)?) {
        self.fixedPriority = handle.value
        self.handle = handle
        self.progress = progress
    }

    /// The handle to queue with: the live one, or a fixed one.
    package var priorityHandle: PriorityHandle { handle ?? PriorityHandle.fixed(fixedPriority) }
}

/// An async hook that may change a request just before it is sent, for example to add a fresh
/// `Authorization` header. Throwing fails the load with the error.
public typealias RequestModifier = @Sendable (URLRequest) async throws -> URLRequest

/// Whether a redirect to a target URL may be followed (``DataLoader/Configuration/redirectFilter``):
/// `true` follows it, `false` fails the load with ``DataLoadingError/redirectRefused``. Called
/// once per hop, on the loading task; keep it quick and free of I/O.
public typealias RedirectFilter = @Sendable (URL) -> Bool

/// Bytes received so far and expected in all for one transfer.
public struct TransferProgress: Sendable, Hashable {
    /// Bytes of the body received so far.
    public var completed: Int64
    /// Bytes expected (from `Content-Length`), or `-1` when unknown.
    public var total: Int64

    /// Creates a progress value; sizes in bytes, `total == -1` when unknown.
    public init(completed: Int64, total: Int64) {
        self.completed = completed
        self.total = total
    }

    /// `completed / total` in 0...1, or `nil` when the total is unknown.
    public var fraction: Double? { total > 0 ? min(1, Double(completed) / Double(total)) : nil }
}

/// The priority of a request, from very low (prefetching) to very high. Shared work runs at the
/// highest priority among its callers.
public enum RequestPriority: Int, Sendable, Hashable, Comparable, CaseIterable, Codable {
    case veryLow = 0, low, normal, high, veryHigh

    /// Orders by raw value, lowest first.
    public static func < (lhs: RequestPriority, rhs: RequestPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
