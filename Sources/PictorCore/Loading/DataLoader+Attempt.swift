import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension DataLoader {
    /// A failed attempt: the error and the server's `Retry-After`, in seconds, if any.
    struct AttemptFailure: Error {
        var error: DataLoadingError
        var retryAfter: Double? = nil
    }

    /// Runs attempts until one succeeds, the failure is not transient, retries run out, or the
    /// overall deadline (``Configuration/timeout`` from the first attempt's start) passes.
    ///
    /// The deadline covers every attempt and backoff wait: an attempt still running at the
    /// deadline fails with ``DataLoadingError/timedOut(seconds:)``; a retry whose backoff would end
    /// after the deadline is not made (the last attempt's error is thrown).
    func performWithRetries(_ id: Int, request: URLRequest) async throws -> (Data, URLResponse) {
        let policy = configuration.retryPolicy
        let deadline = Deadline(seconds: configuration.timeout)
        var retry = 0
        while true {
            do {
                return try await performFollowingRedirects(id, request: request, deadline: deadline)
            } catch let failure as AttemptFailure {
                if case .statusCode(let code) = failure.error, let url = request.url?.absoluteString {
                    failedURLs?.record(code, for: url)
                }
                if deadline.remaining <= 0, failure.error.isTransient { throw DataLoadingError.timedOut(seconds: deadline.seconds) }
                guard failure.error.isTransient, retry < policy.maximumRetries else { throw failure.error }
                var delay = policy.delay(forRetry: retry)
                if let retryAfter = failure.retryAfter {
                    guard retryAfter <= policy.maximumRetryAfter else { throw failure.error }
                    delay = retryAfter
                }
                guard delay < deadline.remaining else { throw failure.error }
                retry += 1
                try await configuration.sleep(delay)
            }
        }
    }

    /// One attempt, following redirects with the hop limit and loop detection.
    /// Redirect targets must pass ``RedirectSchemePolicy`` (http → http(s), https → https);
    /// any other is ``DataLoadingError/redirectNotAllowed(fromScheme:toScheme:)``, never loaded.
    func performFollowingRedirects(_ id: Int, request original: URLRequest, deadline: Deadline) async throws -> (Data, URLResponse) {
        var request = original
        var visited: Set<String> = [original.url?.absoluteString ?? ""]
        var hops = 0
        while true {
            let (data, response) = try await attempt(id, request: request, deadline: deadline)
            if let http = response as? HTTPURLResponse, [301, 302, 303, 307, 308].contains(http.statusCode),
               let location = http.value(forHTTPHeaderField: "Location"),
               let next = URL(string: location, relativeTo: request.url)?.absoluteURL {
                if let refusal = RedirectSchemePolicy.refusal(from: request.url, to: next) {
                    throw AttemptFailure(error: refusal)
                }
                hops += 1
                guard hops <= configuration.maximumRedirects, visited.insert(next.absoluteString).inserted else {
                    throw AttemptFailure(error: .tooManyRedirects)
                }
                request = Self.redirected(request, to: next, status: http.statusCode)
                continue
            }
            return try validate(data, response, for: request)
        }
    }

    /// The request for the next hop: 303 (and 301/302 after a non-GET) becomes a GET without
    /// body; `Authorization` and `Cookie` are dropped when the host changes.
    static func redirected(_ request: URLRequest, to url: URL, status: Int) -> URLRequest {
        var next = request
        next.url = url
        if status == 303 || ((status == 301 || status == 302) && request.httpMethod != "GET" && request.httpMethod != "HEAD") {
            next.httpMethod = "GET"
            next.httpBody = nil
        }
        if url.host?.lowercased() != request.url?.host?.lowercased() || url.port != request.url?.port {
            next.setValue(nil, forHTTPHeaderField: "Authorization")
            next.setValue(nil, forHTTPHeaderField: "Cookie")
        }
        return next
    }

    /// One transport call with Pictor's size limit, ended at the overall `deadline`.
    ///
    /// The transport's idle timeout is lowered to the time left, so URLSession gives up by
    /// itself no later than the deadline as well.
    func attempt(_ id: Int, request original: URLRequest, deadline: Deadline) async throws -> (Data, URLResponse) {
        var request = original
        let remaining = deadline.remaining
        guard remaining > 0 else { throw AttemptFailure(error: .timedOut(seconds: deadline.seconds)) }
        request.timeoutInterval = min(request.timeoutInterval, remaining)
        let control = AttemptControl()
        let buffer = ByteAccumulator()
        let limit = configuration.maximumResponseSize
        let transport = self.transport
        let inner = Task { [self] in
            try await transport.loadData(for: request) { chunk, progress in
                if let limit, progress.total > limit || progress.completed > limit {
                    control.fail(.responseTooLarge(limit: limit))
                    return
                }
                buffer.append(chunk)
                self.report(progress, for: id)
            }
        }
        control.setTask(inner)
        let sleep = configuration.timeoutSleep
        let timer = Task {
            try await sleep(remaining)
            control.fail(.timedOut(seconds: deadline.seconds))
        }
        defer { timer.cancel() }
        do {
            let response = try await withTaskCancellationHandler { try await inner.value } onCancel: { inner.cancel() }
            if let reason = control.reason { throw AttemptFailure(error: reason) }
            return (buffer.data, response)
        } catch let error as DataLoadingError {
            throw AttemptFailure(error: control.reason ?? error)
        } catch is CancellationError {
            if let reason = control.reason { throw AttemptFailure(error: reason) }
            throw CancellationError()
        } catch let failure as AttemptFailure {
            throw failure
        } catch {
            if let reason = control.reason { throw AttemptFailure(error: reason) }
            let nsError = error as NSError
            throw AttemptFailure(error: .transport(code: nsError.code, message: nsError.localizedDescription))
        }
    }

    /// Checks status, length, emptiness, size and image signature.
    func validate(_ data: Data, _ response: URLResponse, for request: URLRequest) throws -> (Data, URLResponse) {
        if let http = response as? HTTPURLResponse {
            let code = http.statusCode
            if code == 304, request.value(forHTTPHeaderField: "If-None-Match") != nil
                || request.value(forHTTPHeaderField: "If-Modified-Since") != nil {
                return (Data(), response)
            }
            // 206 Partial Content is part of a body (Pictor never sends Range): never an image.
            guard (200..<300).contains(code), code != 206 else {
                let retryAfter = (code == 429 || code == 503) ? Self.retryAfter(http.value(forHTTPHeaderField: "Retry-After")) : nil
                throw AttemptFailure(error: .statusCode(code), retryAfter: retryAfter)
            }
        }
        let expected = response.expectedContentLength
        if expected > 0, Int64(data.count) < expected {
            throw AttemptFailure(error: .truncated(received: Int64(data.count), expected: expected))
        }
        guard !data.isEmpty else { throw AttemptFailure(error: .emptyBody) }
        if let limit = configuration.maximumResponseSize, Int64(data.count) > limit {
            throw AttemptFailure(error: .responseTooLarge(limit: limit))
        }
        guard ImageFormat.sniff(data) != nil else {
            let type = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") ?? response.mimeType
            throw AttemptFailure(error: .notAnImage(contentType: type))
        }
        return (data, response)
    }

    /// `Retry-After` as seconds: delta-seconds or an HTTP-date (RFC 9110 §10.2.3).
    static func retryAfter(_ value: String?) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(value), seconds >= 0 { return seconds }
        guard let date = HTTPDate.parse(value) else { return nil }
        return max(0, date.timeIntervalSinceNow)
    }
}

/// Lets a chunk callback or the timer abort an attempt with a reason.
final class AttemptControl: Sendable {
    private let state = Mutex<(reason: DataLoadingError?, task: Task<URLResponse, any Error>?)>((nil, nil))

    var reason: DataLoadingError? { state.withLock { $0.reason } }

    func setTask(_ task: Task<URLResponse, any Error>) {
        let cancel = state.withLock { s -> Bool in s.task = task; return s.reason != nil }
        if cancel { task.cancel() }
    }

    func fail(_ reason: DataLoadingError) {
        let task = state.withLock { s -> Task<URLResponse, any Error>? in
            guard s.reason == nil else { return nil }
            s.reason = reason
            return s.task
        }
        task?.cancel()
    }
}
