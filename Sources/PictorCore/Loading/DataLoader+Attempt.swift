import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension DataLoader {
    /// A successful attempt: the body, the final head, the redirect heads followed, in order,
    /// and whether it ended at a redirect whose target's cache entry answers (empty body, the
    /// last redirect's head).
    struct AttemptOutcome {
        var data: Data
        var head: HTTPResponseHead
        var redirects: [HTTPResponseHead]
        var endsAtCachedTarget = false
    }

    /// A failed attempt: the error and the server's `Retry-After`, in seconds, if any.
    struct AttemptFailure: Error {
        var error: DataLoadingError
        var retryAfter: Double? = nil
    }

    /// Runs attempts until one succeeds, the failure is not transient, retries run out, or the
    /// overall deadline (``Configuration/timeout`` from the first attempt's start) passes. The
    /// error thrown carries the number of attempts and the time they took
    /// (``DataLoadingError/attempts``, ``DataLoadingError/elapsed``).
    ///
    /// The deadline covers every attempt and backoff wait: an attempt still running at the
    /// deadline fails with ``DataLoadingError/timedOut(seconds:)``; a retry whose backoff would end
    /// after the deadline is not made (the last attempt's error is thrown).
    ///
    /// - Returns: the successful attempt's outcome.
    nonisolated(nonsending) func performWithRetries(
        _ request: URLRequest, progress: (@Sendable (TransferProgress) -> Void)?, redirectTargets: RedirectTargetLookup? = nil,
        bodyReceived: (@Sendable (Int64, Data) -> Void)? = nil
    ) async throws -> AttemptOutcome {
        let policy = configuration.retryPolicy
        let deadline = Deadline(seconds: configuration.timeout)
        let start = ContinuousClock.now
        var retry = 0
        while true {
            do {
                return try await performFollowingRedirects(
                    request, deadline: deadline, progress: progress, redirectTargets: redirectTargets, bodyReceived: bodyReceived)
            } catch let failure as AttemptFailure {
                // The error says what happened over all attempts: a transport's text speaks of the
                // last attempt only ("after 0 ms" for a refusal that took seconds over retries).
                func withHistory(_ error: DataLoadingError) -> DataLoadingError {
                    error.after(attempts: retry + 1, elapsed: start.duration(to: .now))
                }
                if failure.error.kind == .statusCode, let code = failure.error.statusCode, let url = request.url?.absoluteString {
                    failedURLs?.record(code, for: url)
                }
                if deadline.remaining <= 0, failure.error.isTransient { throw withHistory(.timedOut(seconds: deadline.seconds)) }
                guard failure.error.isTransient, retry < policy.maximumRetries else { throw withHistory(failure.error) }
                var delay = policy.delay(forRetry: retry)
                if let retryAfter = failure.retryAfter {
                    guard retryAfter <= policy.maximumRetryAfter else { throw withHistory(failure.error) }
                    delay = retryAfter
                }
                guard delay < deadline.remaining else { throw withHistory(failure.error) }
                retry += 1
                try await configuration.sleep(delay)
            }
        }
    }

    /// One attempt, following redirects by ``RedirectPolicy`` and validating the final answer
    /// by ``ResponseValidation``. Each target the policy allows is looked up in
    /// `redirectTargets`, when given, before it is requested: its own cache entry may end the
    /// attempt there, or make the request conditional on that entry's validators.
    nonisolated(nonsending) func performFollowingRedirects(
        _ original: URLRequest, deadline: Deadline, progress: (@Sendable (TransferProgress) -> Void)?,
        redirectTargets: RedirectTargetLookup? = nil, bodyReceived: (@Sendable (Int64, Data) -> Void)? = nil
    ) async throws -> AttemptOutcome {
        var request = original
        var redirects = RedirectPolicy(
            maximumRedirects: configuration.maximumRedirects, start: original.url, filter: configuration.redirectFilter)
        var followed: [HTTPResponseHead] = []
        while true {
            let exchange = try await exchange(request, deadline: deadline, progress: progress, bodyReceived: bodyReceived)
            switch ResponseValidation.status(of: exchange.head, for: request) {
            case .redirect(let target):
                do {
                    request = try redirects.follow(request, to: target, status: exchange.head.statusCode)
                } catch {
                    throw AttemptFailure(error: error)
                }
                followed.append(exchange.head)
                switch await redirectTargets?(request) ?? .request {
                case .request:
                    break
                case .revalidate(let etag, let lastModified):
                    // The target's own validators, never the ones the hop's request carried
                    // (the policy removed those).
                    if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
                    if let lastModified { request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }
                case .cached:
                    return AttemptOutcome(data: Data(), head: exchange.head, redirects: followed, endsAtCachedTarget: true)
                }
            case .notModified:
                return AttemptOutcome(data: Data(), head: exchange.head, redirects: followed)
            case .failure(let status, let retryAfter):
                throw AttemptFailure(error: .statusCode(status), retryAfter: retryAfter)
            case .content:
                do {
                    try ResponseValidation.checkBody(exchange.body, head: exchange.head, limit: configuration.maximumResponseSize)
                } catch {
                    throw AttemptFailure(error: error)
                }
                return AttemptOutcome(data: exchange.body, head: exchange.head, redirects: followed)
            }
        }
    }

    /// One transport exchange within what is left of `deadline`.
    nonisolated(nonsending) func exchange(
        _ request: URLRequest, deadline: Deadline, progress: (@Sendable (TransferProgress) -> Void)?,
        bodyReceived: (@Sendable (Int64, Data) -> Void)? = nil
    ) async throws -> TransportResponse {
        let remaining = deadline.remaining
        guard remaining > 0 else { throw AttemptFailure(error: .timedOut(seconds: deadline.seconds)) }
        var exchange = TransportRequest(
            urlRequest: request,
            connectTimeout: min(configuration.connectTimeout, remaining),
            idleTimeout: min(configuration.idleTimeout, request.timeoutInterval > 0 ? request.timeoutInterval : .infinity, remaining),
            timeout: remaining, reportedTimeout: deadline.seconds,
            maximumBodySize: configuration.maximumResponseSize, progress: progress,
            defaultHeaders: configuration.acceptHeader.map { ["Accept": $0] } ?? [:])
        if let bodyReceived {
            // Only a body that may be the image: a redirect's or an error page's never is.
            exchange.bodyReceived = { status, offset, piece in
                if (200..<300).contains(status) { bodyReceived(offset, piece) }
            }
        }
        do {
            return try await transport.send(exchange)
        } catch let error as DataLoadingError {
            throw AttemptFailure(error: error)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let nsError = error as NSError
            throw AttemptFailure(error: .transport(code: nsError.code, message: nsError.localizedDescription))
        }
    }
}
