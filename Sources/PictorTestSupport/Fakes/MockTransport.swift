import Foundation
import PictorCore
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A scripted ``/PictorCore/DataTransport`` for ``/PictorCore/DataLoader`` tests: answers single exchanges per URL with
/// a status, headers and body, exactly as given (no validation, no redirects followed), and
/// records every request, and holds answers at ``gate``.
///
/// Unknown URLs answer HTTP 404 with an empty body.
public final class MockTransport: DataTransport, Sendable {
    /// One scripted answer.
    public struct Answer: Sendable {
        /// The HTTP status.
        public var statusCode: Int
        /// Response headers.
        public var headers: [String: String]
        /// The body.
        public var body: Data

        /// Creates an answer; defaults: 200, no headers.
        public init(statusCode: Int = 200, headers: [String: String] = [:], body: Data = Data()) {
            self.statusCode = statusCode
            self.headers = headers
            self.body = body
        }
    }

    private struct State {
        var answers: [String: Result<Answer, DataLoadingError>] = [:]
        var requests: [URLRequest] = []
    }
    private let state = Mutex(State())

    /// Answers wait at this gate (after the request is recorded); open by default.
    public let gate = AsyncGate()

    /// Creates a transport with no answers.
    public init() {}

    /// Answers `url` with `answer`.
    public func answer(_ url: URL, _ answer: Answer) { state.withLock { $0.answers[url.absoluteString] = .success(answer) } }
    /// Fails `url` with `error`.
    public func answer(_ url: URL, error: DataLoadingError) { state.withLock { $0.answers[url.absoluteString] = .failure(error) } }

    /// Every request received, in order.
    public var requests: [URLRequest] { state.withLock { $0.requests } }

    /// Answers from the script.
    ///
    /// - Throws: the scripted ``/PictorCore/DataLoadingError`` or `CancellationError`.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        guard let url = request.urlRequest.url else { throw DataLoadingError.unsupportedURL }
        let scripted = state.withLock { s in
            s.requests.append(request.urlRequest)
            return s.answers[url.absoluteString]
        }
        try await gate.pass()
        try Task.checkCancellation()
        let answer = try (scripted ?? .success(Answer(statusCode: 404))).get()
        if let limit = request.maximumBodySize, Int64(answer.body.count) > limit { throw DataLoadingError.responseTooLarge(limit: limit) }
        request.progress?(TransferProgress(completed: Int64(answer.body.count), total: Int64(answer.body.count)))
        return TransportResponse(
            response: HTTPURLResponse(url: url, statusCode: answer.statusCode, httpVersion: "HTTP/1.1", headerFields: answer.headers)!,
            body: answer.body)
    }
}
