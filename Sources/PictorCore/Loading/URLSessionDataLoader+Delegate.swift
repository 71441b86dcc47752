import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionDataLoader {
    /// The session delegate: routes callbacks to the ``TaskHandler`` of each task and decides
    /// redirects (limit and loop detection).
    final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
        private let handlers = Mutex<[Int: TaskHandler]>([:])
        let followsRedirects: Bool
        let maximumRedirects: Int

        init(followsRedirects: Bool, maximumRedirects: Int) {
            self.followsRedirects = followsRedirects
            self.maximumRedirects = maximumRedirects
        }

        func register(_ handler: TaskHandler, for id: Int) { handlers.withLock { $0[id] = handler } }
        func unregister(_ id: Int) { _ = handlers.withLock { $0.removeValue(forKey: id) } }
        private func handler(_ task: URLSessionTask) -> TaskHandler? { handlers.withLock { $0[task.taskIdentifier] } }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            handler(dataTask)?.didReceive(response: response)
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            handler(dataTask)?.didReceive(data: data, networkReceived: dataTask.countOfBytesReceived)
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
        ) {
            guard followsRedirects, let handler = handler(task) else { return completionHandler(nil) }
            // FoundationNetworking rewrites a `Location: file:///x` into `http://<same host>/x`, so
            // the scheme is checked on the header as sent, not on the request it built.
            let location = response.value(forHTTPHeaderField: "Location").flatMap { URL(string: $0, relativeTo: response.url)?.absoluteURL }
            if handler.shouldFollowRedirect(to: location ?? request.url, from: response.url, limit: maximumRedirects) {
                completionHandler(request)
            } else {
                completionHandler(nil)
                URLSessionDataLoader.cancelInBackground(task)
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let handler = handlers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
            handler?.didComplete(response: task.response, error: error)
        }
    }

    /// The state of one transfer: the continuation, bytes counted, redirects seen.
    final class TaskHandler: Sendable {
        private struct State {
            var continuation: CheckedContinuation<URLResponse, any Error>?
            var isCancelled = false
            var isFinished = false
            var response: URLResponse?
            var received: Int64 = 0
            var reported: Int64 = 0
            var expected: Int64 = -1
            var visited: Set<String> = []
            var redirects = 0
            var failure: DataLoadingError?
        }
        private let state = Mutex(State())
        private let didReceiveChunk: @Sendable (Data, TransferProgress) -> Void
        private let timeout: Double

        init(didReceiveChunk: @escaping @Sendable (Data, TransferProgress) -> Void, timeout: Double) {
            self.didReceiveChunk = didReceiveChunk
            self.timeout = timeout
        }

        /// Stores the continuation; returns `false` (and throws `CancellationError` into it) when
        /// the task was already cancelled.
        func start(_ continuation: CheckedContinuation<URLResponse, any Error>) -> Bool {
            let cancelled = state.withLock { s -> Bool in
                if s.isCancelled { s.isFinished = true; return true }
                s.continuation = continuation
                return false
            }
            if cancelled { continuation.resume(throwing: CancellationError()) }
            return !cancelled
        }

        /// Marks the transfer cancelled and throws `CancellationError` into the waiting caller at
        /// once, without waiting for FoundationNetworking's completion (which, for a fast
        /// sender, arrives only after the whole body was read; see ``URLSessionDataLoader``).
        func cancel() {
            let continuation = state.withLock { s -> CheckedContinuation<URLResponse, any Error>? in
                s.isCancelled = true
                defer { s.continuation = nil }
                return s.continuation
            }
            continuation?.resume(throwing: CancellationError())
        }

        func didReceive(response: URLResponse) {
            let expected = response.expectedContentLength
            state.withLock {
                $0.response = response
                $0.expected = expected
                $0.received = 0
                $0.reported = 0
            }
            didReceiveChunk(Data(), TransferProgress(completed: 0, total: expected))
        }

        /// Counts and forwards a chunk; once cancelled, chunks still queued by FoundationNetworking
        /// (its delegate calls are asynchronous and it keeps reading until the cancel reaches its
        /// work queue) are dropped at once instead of being handed on.
        ///
        /// The progress is the bytes libcurl has received (`networkReceived`, the task's
        /// `countOfBytesReceived`), which runs ahead of the chunks delivered so far when the
        /// delegate queue lags behind a fast sender: a size cap sees the overrun at the next
        /// callback instead of after every queued chunk.
        func didReceive(data: Data, networkReceived: Int64) {
            let progress = state.withLock { s -> TransferProgress? in
                guard !s.isCancelled, !s.isFinished else { return nil }
                s.received += Int64(data.count)
                let network = s.expected >= 0 ? min(networkReceived, s.expected) : networkReceived
                s.reported = max(s.reported, s.received, network)
                return TransferProgress(completed: s.reported, total: s.expected)
            }
            if let progress { didReceiveChunk(data, progress) }
        }

        func shouldFollowRedirect(to next: URL?, from current: URL?, limit: Int) -> Bool {
            state.withLock { s in
                if let refusal = RedirectSchemePolicy.refusal(from: current, to: next) {
                    s.failure = refusal
                    return false
                }
                if let current { s.visited.insert(current.absoluteString) }
                s.redirects += 1
                guard let next, s.redirects <= limit, !s.visited.contains(next.absoluteString) else {
                    s.failure = .tooManyRedirects
                    return false
                }
                return true
            }
        }

        func didComplete(response: URLResponse?, error: (any Error)?) {
            let (continuation, result) = state.withLock { s -> (CheckedContinuation<URLResponse, any Error>?, Result<URLResponse, any Error>) in
                let continuation = s.continuation
                s.continuation = nil
                s.isFinished = true
                if let failure = s.failure { return (continuation, .failure(failure)) }
                if s.isCancelled { return (continuation, .failure(CancellationError())) }
                if let error { return (continuation, .failure(Self.map(error, received: s.received, expected: s.expected, timeout: timeout))) }
                guard let response = response ?? s.response else {
                    return (continuation, .failure(DataLoadingError.transport(code: URLError.badServerResponse.rawValue, message: "no response")))
                }
                return (continuation, .success(response))
            }
            continuation?.resume(with: result)
        }

        /// Maps a URLSession error to Pictor's errors.
        static func map(_ error: any Error, received: Int64, expected: Int64, timeout: Double) -> any Error {
            let nsError = error as NSError
            guard nsError.domain == NSURLErrorDomain else {
                return DataLoadingError.transport(code: nsError.code, message: nsError.localizedDescription)
            }
            switch nsError.code {
            case URLError.cancelled.rawValue: return CancellationError()
            case URLError.timedOut.rawValue: return DataLoadingError.idleTimeout(seconds: timeout)
            case URLError.httpTooManyRedirects.rawValue: return DataLoadingError.tooManyRedirects
            case URLError.unsupportedURL.rawValue: return DataLoadingError.unsupportedURL
            default:
                // libcurl's "transfer closed with N bytes remaining to read" arrives as code -1.
                if expected > 0, received < expected {
                    return DataLoadingError.truncated(received: received, expected: expected)
                }
                return DataLoadingError.transport(code: nsError.code, message: nsError.localizedDescription)
            }
        }
    }
}
