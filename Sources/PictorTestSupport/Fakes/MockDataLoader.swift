import Foundation
import PictorCore
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A scripted ``/PictorCore/DataLoading`` (the pipeline's network seam) for tests: answers per URL as a
/// validating ``/PictorCore/DataLoader`` would, counts every load, records each request with its live
/// priority, and holds answers at gates until the test releases them.
///
/// ```swift
/// let loader = MockDataLoader()
/// loader.stub(url, data: TestImageCodec.encode(width: 8, height: 8))
/// loader.gate.close()                          // hold the network
/// // … start requests …
/// await loader.gate.waitUntil(waiting: 1)      // the one shared download is waiting
/// loader.gate.open()
/// ```
///
/// Stubbed bodies are answered with `Cache-Control: max-age=3600` and an `ETag` unless the
/// stub gives its own headers, so a stored entry is fresh for an hour. Unknown URLs fail with
/// ``/PictorCore/DataLoadingError/statusCode(_:)`` 404, so a test never silently reaches a real server.
public final class MockDataLoader: DataLoading, Sendable {
    /// One scripted answer.
    public struct Stub: Sendable {
        /// The HTTP status, default 200.
        public var statusCode: Int
        /// Response headers; `nil` for the defaults above.
        public var headers: [String: String]?
        /// The body.
        public var body: Data
        /// Progress callbacks reported before the answer (≥ 0), default 2.
        public var progressSteps: Int

        /// Creates an answer.
        public init(statusCode: Int = 200, headers: [String: String]? = nil, body: Data, progressSteps: Int = 2) {
            self.statusCode = statusCode
            self.headers = headers
            self.body = body
            self.progressSteps = max(0, progressSteps)
        }
    }

    /// One load as received: the request and the live priority it was queued with.
    public struct Load: Sendable {
        /// The request, with any validators the pipeline added.
        public var request: URLRequest
        private let options: DataLoadOptions
        init(request: URLRequest, options: DataLoadOptions) {
            self.request = request
            self.options = options
        }
        /// The load's priority now (it follows the pipeline's changes while queued).
        public var priority: RequestPriority { options.priority }
        /// Whether it carried validators (a revalidation).
        public var isConditional: Bool {
            request.value(forHTTPHeaderField: "If-None-Match") != nil || request.value(forHTTPHeaderField: "If-Modified-Since") != nil
        }
    }

    private struct State {
        var stubs: [String: Result<Stub, DataLoadingError>] = [:]
        var loads: [Load] = []
        var counts: [String: Int] = [:]
        var urlGates: [String: AsyncGate] = [:]
        var revalidating: Set<String> = []
    }
    private let state = Mutex(State())

    /// Answers wait at this gate; open by default.
    public let gate = AsyncGate()

    /// Creates a loader with no stubs.
    public init() {}

    /// Answers `url` with `stub`.
    public func stub(_ url: URL, _ stub: Stub) { state.withLock { $0.stubs[url.absoluteString] = .success(stub) } }
    /// Answers `url` with a 200 and `data`, after `progressSteps` progress callbacks.
    public func stub(_ url: URL, data: Data, progressSteps: Int = 2) { stub(url, Stub(body: data, progressSteps: progressSteps)) }
    /// Fails `url` with `error`.
    public func stub(_ url: URL, error: DataLoadingError) { state.withLock { $0.stubs[url.absoluteString] = .failure(error) } }

    /// Makes conditional loads of `url` answer `304 Not Modified` (a confirmed revalidation).
    public func setRevalidating(_ url: URL, _ revalidates: Bool = true) {
        state.withLock { s in
            if revalidates { s.revalidating.insert(url.absoluteString) } else { s.revalidating.remove(url.absoluteString) }
        }
    }

    /// A gate for the answers of `url` alone, closed when first asked for (in addition to
    /// ``gate``): open it to release that URL, so tests can complete requests in any order.
    public func gate(for url: URL) -> AsyncGate {
        state.withLock { s in
            if let gate = s.urlGates[url.absoluteString] { return gate }
            let gate = AsyncGate(isOpen: false)
            s.urlGates[url.absoluteString] = gate
            return gate
        }
    }

    /// Loads started, for every URL.
    public var loadCount: Int { state.withLock { $0.loads.count } }
    /// Loads started for `url`.
    public func loadCount(for url: URL) -> Int { state.withLock { $0.counts[url.absoluteString] ?? 0 } }
    /// Every load received, in order.
    public var loads: [Load] { state.withLock { $0.loads } }
    /// Every request received, in order.
    public var requests: [URLRequest] { loads.map(\.request) }
    /// The live priority of the latest load of `url`.
    public func currentPriority(for url: URL) -> RequestPriority? {
        state.withLock { $0.loads.last { $0.request.url == url }?.priority }
    }

    /// Answers from the stubs after passing ``gate`` and the URL's gate.
    ///
    /// - Throws: the stubbed ``/PictorCore/DataLoadingError``, 404 for unknown URLs or a stubbed error
    ///   status, or `CancellationError`.
    public func loadData(for request: URLRequest, options: DataLoadOptions) async throws -> (Data, URLResponse) {
        guard let url = request.url else { throw DataLoadingError.unsupportedURL }
        let key = url.absoluteString
        let load = Load(request: request, options: options)
        let (stub, urlGate, revalidates) = state.withLock { s in
            s.counts[key, default: 0] += 1
            s.loads.append(load)
            return (s.stubs[key], s.urlGates[key], s.revalidating.contains(key))
        }
        try await gate.pass()
        try await urlGate?.pass()
        try Task.checkCancellation()
        if revalidates, load.isConditional {
            return (Data(), HTTPURLResponse(url: url, statusCode: 304, httpVersion: "HTTP/1.1", headerFields: ["Cache-Control": "max-age=3600"])!)
        }
        guard let stub else { throw DataLoadingError.statusCode(404) }
        let answer = try stub.get()
        guard (200..<300).contains(answer.statusCode) else { throw DataLoadingError.statusCode(answer.statusCode) }
        let total = Int64(answer.body.count)
        for step in 0..<answer.progressSteps {
            options.progress?(TransferProgress(completed: total * Int64(step + 1) / Int64(answer.progressSteps), total: total))
        }
        var headers = answer.headers ?? ["Cache-Control": "max-age=3600", "ETag": "\"mock\""]
        if headers["Content-Length"] == nil { headers["Content-Length"] = "\(answer.body.count)" }
        return (answer.body, HTTPURLResponse(url: url, statusCode: answer.statusCode, httpVersion: "HTTP/1.1", headerFields: headers)!)
    }
}
