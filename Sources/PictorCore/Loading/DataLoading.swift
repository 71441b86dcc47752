import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Transfers the bytes of one request: the network seam of the pipeline.
///
/// Implementations stream the body through `didReceiveChunk`, return the final response, and
/// stop the transfer promptly when the calling task is cancelled (throwing `CancellationError`).
public protocol DataLoading: Sendable {
    /// Loads `request`.
    ///
    /// - Parameters:
    ///   - request: the request to send.
    ///   - didReceiveChunk: called for each body chunk in order, with the running progress.
    /// - Returns: the response, once the whole body was received.
    /// - Throws: ``DataLoadingError``, or `CancellationError` when the task was cancelled.
    func loadData(
        for request: URLRequest,
        didReceiveChunk: @escaping @Sendable (_ chunk: Data, _ progress: TransferProgress) -> Void
    ) async throws -> URLResponse

    /// Loads `request` with per-request options (priority, request modifier).
    ///
    /// The default implementation applies ``DataLoadOptions/requestModifier``, ignores the
    /// priority and calls ``loadData(for:didReceiveChunk:)``. ``DataLoader`` schedules by the
    /// priority and coalesces identical requests.
    ///
    /// - Throws: ``DataLoadingError``, `CancellationError`, or what the modifier throws.
    func loadData(
        for request: URLRequest,
        options: DataLoadOptions,
        didReceiveChunk: @escaping @Sendable (_ chunk: Data, _ progress: TransferProgress) -> Void
    ) async throws -> URLResponse
}

extension DataLoading {
    /// Applies the options' request modifier, then loads through ``loadData(for:didReceiveChunk:)``.
    public func loadData(
        for request: URLRequest,
        options: DataLoadOptions,
        didReceiveChunk: @escaping @Sendable (_ chunk: Data, _ progress: TransferProgress) -> Void
    ) async throws -> URLResponse {
        var request = request
        if let modifier = options.requestModifier { request = try await modifier(request) }
        return try await loadData(for: request, didReceiveChunk: didReceiveChunk)
    }
}

extension DataLoading {
    /// Loads `request` and collects the whole body.
    ///
    /// - Throws: ``DataLoadingError``, or `CancellationError`.
    public func data(
        for request: URLRequest,
        progress: @escaping @Sendable (TransferProgress) -> Void = { _ in }
    ) async throws -> (Data, URLResponse) {
        let buffer = ByteAccumulator()
        let response = try await loadData(for: request) { chunk, p in
            buffer.append(chunk)
            progress(p)
        }
        return (buffer.data, response)
    }
}

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
