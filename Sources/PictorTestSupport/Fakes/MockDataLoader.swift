import Foundation
import PictorCore
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A scripted ``DataLoading`` (the network seam) for tests: answers per URL with a status,
/// headers and a body delivered in chunks, counts every load, and holds answers at a gate
/// until the test releases them.
///
/// Unknown URLs answer HTTP 404 with an empty body, so a test never reaches a real server.
public final class MockDataLoader: DataLoading, Sendable {
    /// One scripted answer.
    public struct Stub: Sendable {
        /// The HTTP status, default 200.
        public var statusCode: Int
        /// Response headers; `Content-Length` is added when missing.
        public var headers: [String: String]
        /// The body.
        public var body: Data
        /// Number of chunks the body is delivered in (≥ 1), default 2.
        public var chunkCount: Int

        /// Creates an answer.
        public init(statusCode: Int = 200, headers: [String: String] = [:], body: Data, chunkCount: Int = 2) {
            self.statusCode = statusCode
            self.headers = headers
            self.body = body
            self.chunkCount = max(1, chunkCount)
        }
    }

    private struct State {
        var stubs: [String: Result<Stub, DataLoadingError>] = [:]
        var counts: [String: Int] = [:]
        var requests: [URLRequest] = []
    }
    private let state = Mutex(State())

    /// Answers wait at this gate; open by default.
    public let gate = AsyncGate()

    /// Creates a loader with no stubs.
    public init() {}

    /// Answers `url` with `stub`.
    public func stub(_ url: URL, _ stub: Stub) { state.withLock { $0.stubs[url.absoluteString] = .success(stub) } }
    /// Answers `url` with a 200 and `data`.
    public func stub(_ url: URL, data: Data) { stub(url, Stub(body: data)) }
    /// Fails `url` with `error` (thrown, as a transport failure would be).
    public func stub(_ url: URL, error: DataLoadingError) { state.withLock { $0.stubs[url.absoluteString] = .failure(error) } }

    /// Loads started, for every URL.
    public var loadCount: Int { state.withLock { $0.requests.count } }
    /// Loads started for `url`.
    public func loadCount(for url: URL) -> Int { state.withLock { $0.counts[url.absoluteString] ?? 0 } }
    /// Every request received, in order.
    public var requests: [URLRequest] { state.withLock { $0.requests } }

    /// Answers from the stubs after passing ``gate``: the body in ``Stub/chunkCount`` chunks, then
    /// the response (404 with an empty body for unknown URLs).
    ///
    /// - Throws: the stubbed ``DataLoadingError``, or `CancellationError`.
    public func loadData(
        for request: URLRequest,
        didReceiveChunk: @escaping @Sendable (_ chunk: Data, _ progress: TransferProgress) -> Void
    ) async throws -> URLResponse {
        guard let url = request.url else { throw DataLoadingError.unsupportedURL }
        let stub = state.withLock { s in
            s.counts[url.absoluteString, default: 0] += 1
            s.requests.append(request)
            return s.stubs[url.absoluteString]
        }
        try await gate.pass()
        try Task.checkCancellation()
        let answer = try (stub ?? .success(Stub(statusCode: 404, body: Data()))).get()
        var headers = answer.headers
        if headers["Content-Length"] == nil { headers["Content-Length"] = "\(answer.body.count)" }
        let total = Int64(answer.body.count)
        if !answer.body.isEmpty {
            let size = (answer.body.count + answer.chunkCount - 1) / answer.chunkCount
            var offset = 0
            while offset < answer.body.count {
                try Task.checkCancellation()
                let end = min(offset + size, answer.body.count)
                let chunk = answer.body.subdata(in: offset..<end)
                offset = end
                didReceiveChunk(chunk, TransferProgress(completed: Int64(offset), total: total))
            }
        }
        guard let response = HTTPURLResponse(url: url, statusCode: answer.statusCode, httpVersion: "HTTP/1.1", headerFields: headers) else {
            throw DataLoadingError.unsupportedURL
        }
        return response
    }
}
