import Foundation
import Synchronization

/// Loads images ahead of need at low priority into the memory cache or only into the disk
/// cache, sharing work with live requests for the same images.
///
/// The prefetcher keeps no queue of its own: each request goes to the pipeline at once, as
/// background work, and waits in the pipeline's queues (network, decode, process) behind
/// every visible request. How many prefetches download at once is the loader's
/// ``DataLoader/Configuration/maximumConcurrentBackgroundRequests`` (2 by default), shared by
/// every prefetcher of the pipeline: prefetching never takes every network slot.
///
/// ```swift
/// let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .diskCache)
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
        /// Requests accepted (duplicates of held or running ones excluded).
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
        /// Requests held now because the prefetcher is paused (``ImagePrefetcher/pause()``).
        public var pending = 0
        /// Requests given to the pipeline and not finished now (waiting in its queues or
        /// loading).
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
        /// Requests given while paused, in order, and their keys.
        var held: [Entry] = []
        var heldKeys: Set<ByteString> = []
        /// Prefetches given to the pipeline, by key, with the token of the start that owns the
        /// entry (a stopped request given again gets a new one).
        var running: [ByteString: (task: Task<Void, Never>, token: Int)] = [:]
        /// Stopped prefetches whose cancelled task has not ended yet: no longer running for the
        /// caller (the same request may be given again at once), but not idle either.
        var stopping = 0
        var nextToken = 0
        var isPaused = false
        var statistics = Statistics()
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// Finished prefetches whose completion handler is running.
        var delivering = 0
        /// Nothing runs, no handler runs, and nothing is held (or the prefetcher is paused).
        var isIdle: Bool { running.isEmpty && stopping == 0 && delivering == 0 && (held.isEmpty || isPaused) }
    }

    /// The pipeline that loads.
    public let pipeline: ImagePipeline
    /// Where images go; default ``Destination/memoryCache``.
    public let destination: Destination
    /// The value given to the deprecated initializer (2 otherwise). It no longer limits
    /// anything: prefetches wait in the pipeline's queues, and the loader's
    /// ``DataLoader/Configuration/maximumConcurrentBackgroundRequests`` bounds how many
    /// download at once.
    @available(*, deprecated, message: "Prefetches wait in the pipeline's queues; set DataLoader.Configuration.maximumConcurrentBackgroundRequests")
    public var maxConcurrentRequestCount: Int { requestedConcurrency }
    private let requestedConcurrency: Int
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
    ///   - priority: the priority every prefetch runs at; ``RequestPriority/low`` by default (a
    ///     priority of ``RequestPriority/normal`` or above makes prefetches visible work, not
    ///     held to the background limit).
    ///   - onCompletion: called (on an arbitrary thread) once per request that completed,
    ///     failed or was stopped while running.
    public init(
        pipeline: ImagePipeline, destination: Destination = .memoryCache,
        priority: RequestPriority = .low, onCompletion: (@Sendable (ImageRequest, Outcome) -> Void)? = nil
    ) {
        self.pipeline = pipeline
        self.destination = destination
        self.requestedConcurrency = 2
        self.priority = priority
        self.onCompletion = onCompletion
    }

    /// Creates a prefetcher; `maxConcurrentRequestCount` is kept (``maxConcurrentRequestCount``)
    /// but limits nothing any more.
    ///
    /// - Parameters:
    ///   - pipeline: the pipeline that loads.
    ///   - destination: where images go.
    ///   - maxConcurrentRequestCount: ignored; see ``DataLoader/Configuration/maximumConcurrentBackgroundRequests``.
    ///   - priority: the priority every prefetch runs at.
    ///   - onCompletion: called once per request that completed, failed or was stopped while running.
    @available(*, deprecated, message: "Prefetches wait in the pipeline's queues; set DataLoader.Configuration.maximumConcurrentBackgroundRequests")
    public convenience init(
        pipeline: ImagePipeline, destination: Destination = .memoryCache, maxConcurrentRequestCount: Int,
        priority: RequestPriority = .low, onCompletion: (@Sendable (ImageRequest, Outcome) -> Void)? = nil
    ) {
        self.init(pipeline: pipeline, destination: destination, priority: priority, onCompletion: onCompletion)
    }

    /// A snapshot of the counters.
    public var statistics: Statistics {
        state.withLock { s in
            var statistics = s.statistics
            statistics.pending = s.held.count
            statistics.running = s.running.count
            return statistics
        }
    }

    /// Whether new prefetches are held (those given to the pipeline continue).
    public var isPaused: Bool { state.withLock { $0.isPaused } }

    /// Queues `urls` as plain requests.
    ///
    /// - Parameter urls: the images to load, as requests with no processing.
    public func startPrefetching(with urls: [URL]) {
        startPrefetching(with: urls.map { ImageRequest(url: $0) })
    }

    /// Gives `requests` to the pipeline in order (or holds them while paused), skipping any
    /// already held or running.
    ///
    /// - Parameter requests: the requests to load, at the prefetcher's ``priority``.
    public func startPrefetching(with requests: [ImageRequest]) {
        state.withLock { s in
            for request in requests {
                let key = self.key(for: request)
                guard s.running[key] == nil, !s.heldKeys.contains(key) else { continue }
                s.statistics.requested += 1
                let entry = Entry(key: key, request: request)
                if s.isPaused {
                    s.held.append(entry)
                    s.heldKeys.insert(key)
                } else {
                    start(entry, in: &s)
                }
            }
        }
        notifyIfIdle()
    }

    /// Stops the prefetches of `requests`: held ones are dropped, running ones cancelled
    /// (their shared work stops only if no live request needs it). A stopped request may be
    /// given again at once (a cell that scrolls back): it runs again, whether or not its
    /// cancelled task has ended.
    ///
    /// - Parameter requests: requests given to ``startPrefetching(with:)-([ImageRequest])``
    ///   earlier.
    public func stopPrefetching(with requests: [ImageRequest]) {
        let tasks: [Task<Void, Never>] = state.withLock { s in
            var tasks: [Task<Void, Never>] = []
            for request in requests {
                let key = self.key(for: request)
                if s.heldKeys.remove(key) != nil {
                    s.held.removeAll { $0.key == key }
                    s.statistics.cancelled += 1
                }
                if let running = s.running.removeValue(forKey: key) {
                    tasks.append(running.task)
                    s.stopping += 1
                }
            }
            return tasks
        }
        for task in tasks { task.cancel() }
        notifyIfIdle()
    }

    /// Stops everything: drops held requests and cancels running prefetches.
    public func stopPrefetching() {
        let tasks: [Task<Void, Never>] = state.withLock { s in
            s.statistics.cancelled += s.held.count
            s.held.removeAll()
            s.heldKeys.removeAll()
            let tasks = s.running.values.map(\.task)
            s.stopping += tasks.count
            s.running.removeAll()
            return tasks
        }
        for task in tasks { task.cancel() }
        notifyIfIdle()
    }

    /// Holds prefetches requested from now on until ``resume()``; those already given to the
    /// pipeline continue (their place in its queues is what orders them).
    public func pause() { state.withLock { $0.isPaused = true } }

    /// Gives the held prefetches to the pipeline after ``pause()``.
    public func resume() {
        state.withLock { s in
            s.isPaused = false
            let held = s.held
            s.held.removeAll()
            s.heldKeys.removeAll()
            for entry in held where s.running[entry.key] == nil { start(entry, in: &s) }
        }
        notifyIfIdle()
    }

    /// Returns when nothing is held or running (or, while paused, when nothing runs), and
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

    /// Gives `entry` to the pipeline now: its place in the pipeline's queues, at the
    /// prefetcher's priority, is what orders and bounds it.
    private func start(_ entry: Entry, in s: inout State) {
        let token = s.nextToken
        s.nextToken += 1
        let task = Task(priority: .low) { [self] in
            let outcome = await self.run(entry.request)
            self.finish(entry, token: token, outcome)
        }
        s.running[entry.key] = (task, token)
    }

    private func run(_ original: ImageRequest) async -> Outcome {
        var request = original
        request.priority = priority
        do {
            switch destination {
            case .memoryCache:
                return .success(try await pipeline.image(for: request).cacheLayer)
            case .diskCache:
                return .success(try await pipeline.warm(request, priority: PriorityHandle.fixed(priority)))
            }
        } catch {
            return .failure(error)
        }
    }

    /// Counts the outcome and delivers it. The entry stops running first (so the handler may
    /// queue the same request again), but counts as delivering until the handler returns:
    /// ``waitUntilIdle()`` must not return while a completion handler still runs.
    private func finish(_ entry: Entry, token: Int, _ outcome: Outcome) {
        state.withLock { s in
            if s.running[entry.key]?.token == token {
                s.running[entry.key] = nil
            } else {
                // Stopped earlier (and maybe given again since, under a new token).
                s.stopping -= 1
            }
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
        notifyIfIdle()
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
