import Foundation
import Synchronization

/// Loads images ahead of need at low priority, a few at a time, into the memory cache or only
/// into the disk cache, sharing work with live requests for the same images.
///
/// ```swift
/// let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .diskCache, maxConcurrentRequestCount: 6)
/// prefetcher.startPrefetching(with: urls)
/// await prefetcher.waitUntilIdle()
/// print(prefetcher.statistics.diskHits, prefetcher.statistics.networkLoads)
/// ```
///
/// - Important: thread-safe. Requests already queued or running are not queued twice.
public final class ImagePrefetcher: Sendable {
    /// Where prefetched images end up.
    public enum Destination: String, Sendable, Hashable, CaseIterable {
        /// Decode (and process) the image and keep it in the memory cache (and the disk cache by
        /// the pipeline's policy).
        case memoryCache
        /// Only fetch the original bytes into the disk cache; nothing is decoded. An entry the
        /// pipeline would serve now counts as a disk hit from its metadata alone (no bytes
        /// read); a stale one is revalidated (or downloaded), never counted as a hit.
        case diskCache
    }

    /// What the prefetcher did since it was created.
    public struct Statistics: Sendable, Hashable {
        /// Requests accepted into the queue (duplicates of queued or running ones excluded).
        public var requested = 0
        /// Requests that completed.
        public var completed = 0
        /// Requests that failed (cancellations excluded).
        public var failed = 0
        /// Requests stopped before they completed.
        public var cancelled = 0
        /// Completed requests already in the memory cache.
        public var memoryHits = 0
        /// Completed requests already in the disk cache.
        public var diskHits = 0
        /// Completed requests served by the shared fleet tier.
        public var sharedHits = 0
        /// Completed requests loaded from the network.
        public var networkLoads = 0
        /// Requests waiting for a slot now.
        public var pending = 0
        /// Requests running now.
        public var running = 0

        /// Creates zeroed statistics.
        public init() {}
    }

    /// The outcome of one prefetch: the layer that had (or now has) it, or the error.
    public typealias Outcome = Result<CacheLayer, ImagePipeline.Error>

    private struct Entry {
        let key: ByteString
        let request: ImageRequest
    }

    private struct State {
        var queue: [Entry] = []
        var head = 0
        var queued: Set<ByteString> = []
        var running: [ByteString: Task<Void, Never>] = [:]
        var isPaused = false
        var statistics = Statistics()
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// Finished prefetches whose completion handler is running.
        var delivering = 0
        /// Nothing runs, no handler runs, and nothing is queued (or the queue is paused).
        var isIdle: Bool { running.isEmpty && delivering == 0 && (queued.isEmpty || isPaused) }

        var pendingCount: Int { queued.count }

        mutating func popNext() -> Entry? {
            while head < queue.count {
                let entry = queue[head]
                head += 1
                if head > 64 && head * 2 > queue.count {
                    queue.removeFirst(head)
                    head = 0
                }
                if queued.remove(entry.key) != nil { return entry }
            }
            return nil
        }
    }

    /// The pipeline that loads.
    public let pipeline: ImagePipeline
    /// Where images go; default ``Destination/memoryCache``.
    public let destination: Destination
    /// Requests running at once (≥ 1); default 2.
    public let maxConcurrentRequestCount: Int
    /// The priority every prefetch runs at (it overrides the request's); default
    /// ``RequestPriority/low``. Live requests joining the same work raise it.
    public let priority: RequestPriority
    private let onCompletion: (@Sendable (ImageRequest, Outcome) -> Void)?
    private let state = Mutex(State())

    /// Creates a prefetcher.
    ///
    /// - Parameters:
    ///   - pipeline: the pipeline that loads.
    ///   - destination: where images go; ``Destination/memoryCache`` by default.
    ///   - maxConcurrentRequestCount: requests running at once; 2 by default, at least 1.
    ///   - priority: the priority every prefetch runs at; ``RequestPriority/low`` by default.
    ///   - onCompletion: called (on an arbitrary thread) once per request that completed,
    ///     failed or was stopped while running.
    public init(
        pipeline: ImagePipeline, destination: Destination = .memoryCache, maxConcurrentRequestCount: Int = 2,
        priority: RequestPriority = .low, onCompletion: (@Sendable (ImageRequest, Outcome) -> Void)? = nil
    ) {
        self.pipeline = pipeline
        self.destination = destination
        self.maxConcurrentRequestCount = max(1, maxConcurrentRequestCount)
        self.priority = priority
        self.onCompletion = onCompletion
    }

    /// A snapshot of the counters.
    public var statistics: Statistics {
        state.withLock { s in
            var statistics = s.statistics
            statistics.pending = s.pendingCount
            statistics.running = s.running.count
            return statistics
        }
    }

    /// Whether new prefetches are held (running ones continue).
    public var isPaused: Bool { state.withLock { $0.isPaused } }

    /// Queues `urls` as plain requests.
    ///
    /// - Parameter urls: the images to load, as requests with no processing.
    public func startPrefetching(with urls: [URL]) {
        startPrefetching(with: urls.map { ImageRequest(url: $0) })
    }

    /// Queues `requests` in order, skipping any already queued or running.
    ///
    /// - Parameter requests: the requests to load, at the prefetcher's ``priority``.
    public func startPrefetching(with requests: [ImageRequest]) {
        state.withLock { s in
            for request in requests {
                let key = self.key(for: request)
                guard s.running[key] == nil, s.queued.insert(key).inserted else { continue }
                s.queue.append(Entry(key: key, request: request))
                s.statistics.requested += 1
            }
        }
        drain()
    }

    /// Stops the prefetches of `requests`: queued ones are dropped, running ones cancelled
    /// (their shared work stops only if no live request needs it).
    ///
    /// - Parameter requests: requests given to ``startPrefetching(with:)-([ImageRequest])``
    ///   earlier.
    public func stopPrefetching(with requests: [ImageRequest]) {
        let tasks: [Task<Void, Never>] = state.withLock { s in
            var tasks: [Task<Void, Never>] = []
            for request in requests {
                let key = self.key(for: request)
                if s.queued.remove(key) != nil { s.statistics.cancelled += 1 }
                if let task = s.running[key] { tasks.append(task) }
            }
            return tasks
        }
        for task in tasks { task.cancel() }
        notifyIfIdle()
    }

    /// Stops everything: drops the queue and cancels running prefetches.
    public func stopPrefetching() {
        let tasks: [Task<Void, Never>] = state.withLock { s in
            s.statistics.cancelled += s.queued.count
            s.queue.removeAll()
            s.head = 0
            s.queued.removeAll()
            return Array(s.running.values)
        }
        for task in tasks { task.cancel() }
        notifyIfIdle()
    }

    /// Holds queued prefetches (running ones continue) until ``resume()``.
    public func pause() { state.withLock { $0.isPaused = true } }

    /// Starts queued prefetches again after ``pause()``.
    public func resume() {
        state.withLock { $0.isPaused = false }
        drain()
    }

    /// Returns when nothing is queued or running (or, while paused, when nothing runs), and
    /// every completion handler called so far has returned.
    public func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { s -> Bool in
                if s.isIdle { return true }
                s.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// The key two requests share when one prefetch serves both; by bytes, as the caches key.
    private func key(for request: ImageRequest) -> ByteString {
        switch destination {
        case .memoryCache: ByteString(pipeline.imageCacheKey(for: request).rawValue)
        case .diskCache: ByteString(pipeline.dataCacheKey(for: request))
        }
    }

    /// Starts queued entries while slots are free.
    private func drain() {
        while true {
            let started: Bool = state.withLock { s in
                guard !s.isPaused, s.running.count < maxConcurrentRequestCount, let entry = s.popNext() else { return false }
                let task = Task(priority: .low) { [self] in
                    let outcome = await self.run(entry.request)
                    self.finish(entry, outcome)
                }
                s.running[entry.key] = task
                return true
            }
            if !started { break }
        }
        notifyIfIdle()
    }

    private func run(_ original: ImageRequest) async -> Outcome {
        var request = original
        request.priority = priority
        do {
            switch destination {
            case .memoryCache:
                return .success(try await pipeline.image(for: request).cacheLayer)
            case .diskCache:
                return .success(try await pipeline.warm(request, priority: PriorityHandle(priority, isFixed: true)))
            }
        } catch {
            return .failure(error)
        }
    }

    /// Counts the outcome and delivers it. The entry stops running first (so the handler may
    /// queue the same request again), but counts as delivering until the handler returns:
    /// ``waitUntilIdle()`` must not return while a completion handler still runs.
    private func finish(_ entry: Entry, _ outcome: Outcome) {
        state.withLock { s in
            s.running[entry.key] = nil
            s.delivering += 1
            switch outcome {
            case .success(let layer):
                s.statistics.completed += 1
                switch layer {
                case .memory: s.statistics.memoryHits += 1
                case .disk: s.statistics.diskHits += 1
                case .shared: s.statistics.sharedHits += 1
                case .network: s.statistics.networkLoads += 1
                }
            case .failure(.cancelled): s.statistics.cancelled += 1
            case .failure: s.statistics.failed += 1
            }
        }
        onCompletion?(entry.request, outcome)
        state.withLock { $0.delivering -= 1 }
        drain()
    }

    private func notifyIfIdle() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { s in
            guard s.isIdle else { return [] }
            defer { s.idleWaiters.removeAll() }
            return s.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
