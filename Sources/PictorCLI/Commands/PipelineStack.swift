import Foundation
import Pictor

/// The pipeline a command runs on: the Linux stack with the command's cache options.
struct PipelineStack: Sendable {
    let pipeline: ImagePipeline
    let diskCache: DiskCache?
    let sharedCache: RedisSharedCache?

    /// - Parameters:
    ///   - shared: the Redis shared tier, when one was asked for.
    ///   - concurrency: downloads at once (the loader's slots and libcurl's connections per
    ///     host); `6` by default.
    init(cache: CacheOptions, shared: SharedCacheOption = SharedCacheOption(), console: Console, concurrency: Int = 6) throws {
        let key = try cache.loadKey()
        sharedCache = try shared.open(key: key, connections: concurrency)
        let log = PictorLog(level: .warning) { level, message in console.error("pictor[\(level)]: \(message)") }
        if cache.disabled {
            diskCache = nil
        } else {
            try cache.checkIsCacheDirectory()
            do {
                diskCache = try DiskCache.standard(directory: cache.directory, encryptionKey: key, logger: log)
            } catch let error as DiskCacheError {
                // A key problem is the user's to fix: refuse. Anything else (a full disk, a
                // broken index that cannot be rebuilt): load without the disk layer, as the
                // pipeline must keep working when the cache cannot.
                if case .keyMismatch = error { throw cache.openError(error) }
                console.error("pictor[warning]: disk cache unavailable, loading without it: \(error)")
                diskCache = nil
            }
        }
        var configuration = ImagePipeline.Configuration.standard(
            diskCache: diskCache, dataLoader: DataLoader.standard(maximumConcurrentRequests: concurrency), logger: log)
        configuration.sharedCache = sharedCache
        // The fleet keeps an image as long as a local cache would.
        if let maxAge = diskCache?.configuration.maxAge ?? DiskCache.Configuration(directory: cache.directory).maxAge {
            configuration.sharedCachePolicy.timeToLive = .seconds(maxAge)
        }
        pipeline = ImagePipeline(configuration: configuration)
    }

    /// Adds this run's shared-tier counters to the fleet's (shown by `pictor cache stats
    /// --shared-cache URL`); a failing tier loses them, bounded by its timeouts.
    func recordSharedStatistics() async {
        guard let sharedCache else { return }
        try? await sharedCache.record(pipeline.statistics.sharedCache)
    }

    /// Waits for pending disk writes, so that a next process sees them.
    func flush() { diskCache?.flush() }

    func close() { flush() }
}
