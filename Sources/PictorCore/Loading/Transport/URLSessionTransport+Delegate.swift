import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// The session delegate: routes callbacks to the ``TaskHandler`` of each task and never
    /// follows a redirect (the 3xx response completes the task).
    final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
        private let handlers = Mutex<[Int: TaskHandler]>([:])

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
            completionHandler(nil)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let handler = handlers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
            handler?.didComplete(response: task.response, error: error)
        }
    }

    /// The state of one exchange: the continuation, the body, the limits.
    final class TaskHandler: Sendable {
        private struct State {
            var continuation: CheckedContinuation<TransportResponse, any Error>?
            var isFinished = false
            var response: URLResponse?
            var body = Data()
            var reported: Int64 = 0
            var expected: Int64 = -1
            var failure: DataLoadingError?
        }
        private let state = Mutex(State())
        private let exchange: TransportRequest
        private let idleTimeout: Double
        private let cancelTask: @Sendable () -> Void

        init(exchange: TransportRequest, idleTimeout: Double, cancelTask: @escaping @Sendable () -> Void) {
            self.exchange = exchange
            self.idleTimeout = idleTimeout
            self.cancelTask = cancelTask
        }

        /// Stores the continuation; returns `false` (and throws into it) when the exchange
        /// already ended (cancelled or failed before it started).
        func start(_ continuation: CheckedContinuation<TransportResponse, any Error>) -> Bool {
            let failure = state.withLock { s -> (any Error)? in
                if s.isFinished { return s.failure ?? CancellationError() }
                s.continuation = continuation
                return nil
            }
            if let failure { continuation.resume(throwing: failure) }
            return failure == nil
        }

        /// Ends the exchange with `CancellationError` at once, without waiting for
        /// FoundationNetworking's completion (which, for a fast sender, arrives only after the
        /// whole body was read).
        func cancel() { end(with: CancellationError(), failure: nil) }

        /// Ends the exchange with `error` (size cap, deadline) and cancels the task.
        func fail(_ error: DataLoadingError) { end(with: error, failure: error) }

        private func end(with error: any Error, failure: DataLoadingError?) {
            let continuation = state.withLock { s -> CheckedContinuation<TransportResponse, any Error>?? in
                guard !s.isFinished else { return nil }
                s.isFinished = true
                s.failure = failure
                s.body = Data()
                defer { s.continuation = nil }
                return .some(s.continuation)
            }
            guard let continuation else { return }
            continuation?.resume(throwing: error)
            cancelTask()
        }

        func didReceive(response: URLResponse) {
            let expected = response.expectedContentLength
            let encoded = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding")
                .map { !$0.isEmpty && $0.lowercased() != "identity" } ?? false
            let total: Int64 = encoded ? -1 : expected
            state.withLock {
                $0.response = response
                $0.expected = total
                $0.body = Data()
                $0.reported = 0
            }
            if let limit = exchange.maximumBodySize, total > limit { return fail(.responseTooLarge(limit: limit)) }
            exchange.progress?(TransferProgress(completed: 0, total: total))
        }

        /// Collects a chunk. The size cap is checked against the bytes libcurl has received
        /// (`networkReceived`), which run ahead of the chunks delivered when the delegate queue
        /// lags behind a fast sender, so an overrun is seen at the next callback.
        func didReceive(data: Data, networkReceived: Int64) {
            let status = (state.withLock { $0.response } as? HTTPURLResponse)?.statusCode ?? 0
            let progress = state.withLock { s -> TransferProgress? in
                guard !s.isFinished else { return nil }
                let offset = Int64(s.body.count)
                s.body.append(data)
                // Under the lock, so that pieces reach the callback in order.
                exchange.bodyReceived?(status, offset, data)
                s.reported = max(s.reported, Int64(s.body.count), s.expected >= 0 ? min(networkReceived, s.expected) : Int64(s.body.count))
                return TransferProgress(completed: s.reported, total: s.expected)
            }
            guard let progress else { return }
            if let limit = exchange.maximumBodySize, progress.completed > limit { return fail(.responseTooLarge(limit: limit)) }
            exchange.progress?(progress)
        }

        func didComplete(response: URLResponse?, error: (any Error)?) {
            let (continuation, result) = state.withLock {
                s -> (CheckedContinuation<TransportResponse, any Error>?, Result<TransportResponse, any Error>) in
                let continuation = s.continuation
                s.continuation = nil
                s.isFinished = true
                if let error {
                    return (continuation, .failure(Self.map(error, received: Int64(s.body.count), expected: s.expected, timeout: idleTimeout)))
                }
                guard let http = (response ?? s.response) as? HTTPURLResponse else {
                    return (continuation, .failure(DataLoadingError.transport(code: URLError.badServerResponse.rawValue, message: "no HTTP response")))
                }
                return (continuation, .success(TransportResponse(response: http, body: s.body)))
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
