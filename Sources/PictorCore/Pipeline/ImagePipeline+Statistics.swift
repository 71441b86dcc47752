import Foundation

extension ImagePipeline {
    /// Counters of everything the pipeline did since it was created (a snapshot; take another
    /// with ``ImagePipeline/statistics``).
    ///
    /// Every request counted in ``requests`` ends in exactly one of ``completed``, ``failed``
    /// or ``cancelled`` once it finishes, and every completed image request is counted in one of
    /// ``memoryHits``, ``diskHits``, ``sharedHits`` or ``networkLoads``.
    public struct Statistics: Sendable, Hashable {
        /// Image and data requests started.
        public var requests = 0
        /// Requests that delivered a result.
        public var completed = 0
        /// Requests that failed (cancellations excluded).
        public var failed = 0
        /// Requests cancelled by their caller.
        public var cancelled = 0
        /// Completed requests served from the memory cache.
        public var memoryHits = 0
        /// Completed requests served from the disk cache (original or processed variant).
        public var diskHits = 0
        /// Completed requests whose bytes came from the shared fleet tier.
        public var sharedHits = 0
        /// Completed requests whose bytes came from the network.
        public var networkLoads = 0
        /// Fetches of original bytes started (each shared by all its callers).
        public var fetchesStarted = 0
        /// Decodes run (each shared by all its callers; a cached entry that fails to decode and
        /// is downloaded again counts twice).
        public var decodesStarted = 0
        /// Processing steps started (one per processor applied).
        public var processingsStarted = 0
        /// Times a caller joined work already running at some stage (an encoded result
        /// included) instead of starting it.
        public var sharedRequests = 0
        /// Cached entries that failed to decode and were removed.
        public var discardedCacheEntries = 0
        /// Processed variants that could not be encoded or stored (the requests still succeeded).
        public var cacheWriteFailures = 0
        /// Results encoded by ``ImagePipeline/encodedResult(for:)`` (each counted once, however
        /// many callers it answered; processed variants are not counted). That step's calls are
        /// not counted in ``requests``: the image loads it starts are.
        public var resultEncodes = 0
        /// The shared tier's counters (all zero without one).
        public var sharedCache = SharedCacheStatistics()
        /// Failures by stage (``ImagePipeline/Error/Kind/cancelled`` is never counted here).
        public var errors: [ImagePipeline.Error.Kind: Int] = [:]

        /// Creates zeroed counters.
        public init() {}

        mutating func record(_ layer: CacheLayer) {
            completed += 1
            switch layer {
            case .memory: memoryHits += 1
            case .disk: diskHits += 1
            case .shared: sharedHits += 1
            case .network: networkLoads += 1
            }
        }

        mutating func record(_ error: ImagePipeline.Error) {
            if case .cancelled = error {
                cancelled += 1
            } else {
                failed += 1
                errors[error.kind, default: 0] += 1
            }
        }
    }
}
