import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension DataLoader {
    /// How a ``DataLoader`` schedules, validates and retries.
    public struct Configuration: Sendable {
        /// Transfers running at once; others wait, highest priority first. `6` by default
        /// (SDWebImage's `maxConcurrentDownloads` default, and URLSession's per-host limit).
        public var maximumConcurrentRequests: Int = 6
        /// Of those, how many background transfers (a priority below
        /// ``RequestPriority/normal``: every ``ImagePrefetcher`` request) may run at once, so that
        /// prefetching never takes every slot and a visible request always finds one free or
        /// freed next. `2` by default (the prefetcher's own limit in Nuke and Kingfisher);
        /// clamped to `1...maximumConcurrentRequests`. Every prefetcher of the loader's
        /// pipelines shares this limit.
        public var maximumConcurrentBackgroundRequests: Int = 2
        /// Largest HTTP body accepted, in bytes (decoded, after `Content-Encoding`), checked
        /// against an unencoded `Content-Length` as soon as the headers arrive and again while
        /// the body streams; `nil` turns the check off. `file:` and `data:` URLs are not capped.
        /// `50 MiB` by default (a 12,000 × 8,000 JPEG is about 30 MB).
        public var maximumResponseSize: Int64? = 50 * 1024 * 1024
        /// Pictor's overall deadline for one request, in seconds, counted from when its transfer
        /// gets a slot (waiting behind ``maximumConcurrentRequests`` does not count): connect,
        /// headers and body of every attempt, redirects, and the backoff waits between retries
        /// all count against it. Passing it fails with ``DataLoadingError/timedOut(seconds:)``;
        /// a retry that could not start before it is not made. `60` by default.
        public var timeout: Double = 60
        /// Seconds allowed to connect (TCP and TLS) in one attempt; `10` by default.
        public var connectTimeout: Double = 10
        /// Seconds without a byte received before an attempt fails with
        /// ``DataLoadingError/idleTimeout(seconds:)`` (transient: it is retried). `30` by default;
        /// a request's own smaller `timeoutInterval` wins.
        public var idleTimeout: Double = 30
        /// Retries after the first attempt for transient failures. See ``RetryPolicy``.
        public var retryPolicy = RetryPolicy()
        /// Redirect hops followed before failing with ``DataLoadingError/tooManyRedirects``; a
        /// URL seen twice also fails (a loop). `10` by default.
        public var maximumRedirects: Int = 10
        /// Decides whether each redirect hop may be followed, from its absolute target URL:
        /// asked by the loader's redirect rules once their own checks (schemes, hop limit,
        /// loops) pass, before the target is requested; `false` fails the load with
        /// ``DataLoadingError/redirectRefused``, not retried. `nil` (every target those rules
        /// allow) by default. A server that fetches URLs it is given applies its source rules
        /// here, so that an origin it allows cannot send it elsewhere (`ImageService` does).
        public var redirectFilter: RedirectFilter? = nil
        /// Memory of permanently failed URLs; `nil` (off) by default.
        public var failedURLPolicy: FailedURLPolicy? = nil
        /// A hook run on every request before it is sent (once per load, not per retry or
        /// redirect); `nil` by default.
        public var requestModifier: RequestModifier? = nil
        /// The `Accept` header set when a request has none; `nil` sends none.
        /// ``DataLoader/defaultAcceptHeader`` by default.
        public var acceptHeader: String? = DataLoader.defaultAcceptHeader
        /// Sleeps for the given seconds; replaced in tests to record backoff delays.
        package var sleep: @Sendable (Double) async throws -> Void = { seconds in
            try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
        }

        /// Creates a configuration with the defaults above.
        public init() {}
    }

    /// When and how long to wait before retrying a transient failure.
    ///
    /// Transient: Pictor's timeout, transport errors (reset, refused, lost connection), a
    /// body cut short, HTTP 5xx, 408 and 429. Other 4xx are never retried. The wait before retry
    /// `n` (0-based) is `min(maximumDelay, baseDelay × 2ⁿ)` scaled by a random factor in
    /// 0.5…1.0 ("equal jitter"), or the server's `Retry-After` for 429/503 when present.
    public struct RetryPolicy: Sendable {
        /// Retries after the first attempt; `2` by default (3 attempts in all). `0` disables.
        public var maximumRetries: Int = 2
        /// First backoff delay in seconds; `0.5` by default.
        public var baseDelay: Double = 0.5
        /// Cap of a backoff delay in seconds; `10` by default.
        public var maximumDelay: Double = 10
        /// Longest `Retry-After` honoured, in seconds; a longer one fails at once. `30` by default.
        public var maximumRetryAfter: Double = 30

        /// Creates a policy with the defaults above.
        public init(maximumRetries: Int = 2, baseDelay: Double = 0.5, maximumDelay: Double = 10, maximumRetryAfter: Double = 30) {
            self.maximumRetries = maximumRetries
            self.baseDelay = baseDelay
            self.maximumDelay = maximumDelay
            self.maximumRetryAfter = maximumRetryAfter
        }

        /// The backoff before retry `attempt` (0-based), in seconds, with jitter.
        public func delay(forRetry attempt: Int) -> Double {
            let exponential = min(maximumDelay, baseDelay * pow(2, Double(min(attempt, 30))))
            return exponential * Double.random(in: 0.5...1.0)
        }
    }

    /// Which failed URLs to remember, and for how long.
    public struct FailedURLPolicy: Sendable {
        /// Statuses that mark a URL as failed; `[404, 410]` by default.
        public var statusCodes: Set<Int> = [404, 410]
        /// Seconds a failure is remembered; `300` by default.
        public var timeToLive: Double = 300
        /// URLs remembered at most (the memory is cleared when full); `10,000` by default.
        public var maximumCount: Int = 10_000

        /// Creates a policy with the defaults above.
        public init(statusCodes: Set<Int> = [404, 410], timeToLive: Double = 300, maximumCount: Int = 10_000) {
            self.statusCodes = statusCodes
            self.timeToLive = timeToLive
            self.maximumCount = maximumCount
        }
    }

    /// The default `Accept` header: every format Pictor can sniff, modern formats first, then
    /// anything at lower weight (the body is sniffed whatever its type):
    /// `image/avif,image/webp,image/jxl,image/heic,image/png,image/jpeg,image/gif,image/tiff,image/bmp,image/svg+xml,image/vnd.microsoft.icon,image/x-win-bitmap,image/*;q=0.8,*/*;q=0.5`.
    public static let defaultAcceptHeader: String = {
        let order: [ImageFormat] = [.avif, .webp, .jxl, .heic, .png, .jpeg, .gif, .tiff, .bmp, .svg]
        let listed = order + ImageFormat.allCases.filter { !order.contains($0) }
        return (listed.map(\.mimeType) + ["image/*;q=0.8", "*/*;q=0.5"]).joined(separator: ",")
    }()
}
