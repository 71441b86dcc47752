import Foundation

/// How ``ImagePipeline`` uses its ``ImagePipeline/Configuration/sharedCache``: what it shares,
/// for how long, how long it waits for another process's download, and when it gives up on an
/// unhealthy tier for a while.
public struct SharedCachePolicy: Sendable, Hashable {
    /// Entries larger than this, in bytes, are not shared (they stay in the local caches).
    /// Default 8 MiB (8,388,608): a shared tier held in memory is best spent on many images.
    public var maximumEntrySize: Int = 8 * 1024 * 1024
    /// How long the tier keeps an entry. Default 7 days; the CLI sets it to its disk cache's
    /// maximum age. Entries may go earlier under the tier's own eviction.
    public var timeToLive: Duration = .seconds(7 * 86_400)
    /// How long a download lease lasts when its holder neither stores nor releases it (the
    /// holder crashed). Default 10 s.
    public var leaseDuration: Duration = .seconds(10)
    /// How long a process waits for another's download (a lease held elsewhere) before
    /// downloading itself. Default 5 s.
    public var maximumWait: Duration = .seconds(5)
    /// First pause between checks while waiting; it doubles up to ``maximumPollInterval``.
    /// Default 2 ms.
    public var initialPollInterval: Duration = .milliseconds(2)
    /// Longest pause between checks while waiting. Default 50 ms.
    public var maximumPollInterval: Duration = .milliseconds(50)
    /// Consecutive failed operations after which the tier is skipped. Default 3.
    public var failureThreshold: Int = 3
    /// How long the tier is skipped after ``failureThreshold`` failures; one operation then
    /// tries it again. Default 30 s.
    public var coolDown: Duration = .seconds(30)
    /// Whether processes coordinate downloads with leases. Default `true`.
    public var coalescesDownloads: Bool = true
    /// How often the pipeline adds its shared-tier counters to the fleet's
    /// (``SharedDataCache/record(_:)``): after a shared-tier operation, when this long has
    /// passed since it last did (the first operation records at once). `nil`: only when
    /// ``ImagePipeline/recordSharedCacheStatistics()`` is called. Default 10 s.
    public var statisticsInterval: Duration? = .seconds(10)

    /// Creates the default policy; change properties as needed.
    public init() {}
}
