import Foundation
import Pictor
import Synchronization

/// The pipeline a command runs on: the Linux stack with the command's cache options.
///
/// The pipeline itself is built on first use of ``pipeline``: `serve` only hands
/// ``configuration`` to the image service, which builds its own from it.
final class PipelineStack: Sendable {
    /// The pipeline's configuration: the caches, loader, policies and, with thumbnails, the
    /// variant encoder.
    let configuration: ImagePipeline.Configuration
    let diskCache: DiskCache?
    let sharedCache: RedisSharedCache?
    private let built = Mutex<ImagePipeline?>(nil)

    /// The pipeline over ``configuration``, built on the first call; the same one after.
    var pipeline: ImagePipeline {
        built.withLock { built in
            if let built { return built }
            let pipeline = ImagePipeline(configuration: configuration)
            built = pipeline
            return pipeline
        }
    }

    /// Whether ``pipeline`` has been built (for tests).
    var hasBuiltPipeline: Bool { built.withLock { $0 != nil } }

    /// Bytes of downloads staged for the disk writer before a store waits for it: 8 MiB (the
    /// library's default is 64 MiB). A cold run downloads faster than one writer thread seals
    /// and writes, and every staged original stays in memory until it is on disk, so the larger
    /// backlog only raised the peak memory of a run, which ends with a flush anyway.
    static let maxPendingBytes = 8 << 20

    /// - Parameters:
    ///   - shared: the Redis shared tier, when one was asked for.
    ///   - tls: which certificate authorities to trust and the client certificate to send
    ///     (`--ca-file`, `--ca-path`, `--cert`, `--key` and curl's variables); libcurl's
    ///     defaults by default. See ``dataLoader(downloads:tls:addressPolicy:)``.
    ///   - concurrency: downloads at once (libcurl's connections, over all hosts); `6` by
    ///     default. See ``dataLoader(downloads:tls:addressPolicy:)``.
    ///   - addressPolicy: the addresses the transport may connect to; every one by default
    ///     (`serve` refuses non-public ones).
    ///   - strictDecoding: fail on an animation cut short (`--strict-decoding`) instead of
    ///     delivering its complete frames (``/PictorCore/ImageDecodingOptions/TruncatedData``).
    ///   - storesThumbnails: also keep each resized image on disk (as `thumbnailOutput` says), so
    ///     a warm run with the same `--resize` decodes nothing; the original is kept as well, so
    ///     another size is made from it without a download.
    ///   - thumbnailOutput: the format of the files a run with thumbnails writes, when it is
    ///     fixed (`--format`, `--name`'s or `-o`'s extension; `nil`: each source's) and their
    ///     quality (`--quality`, 85 by default). Kept thumbnails are encoded as those files are
    ///     (``ImageJob/outputEncoder``, this format and quality), so that a kept thumbnail is
    ///     written as it is, by this run and by the next (no decode, no second encode); a run
    ///     that writes no files keeps them as a default `--out` run would write them. The
    ///     variant's cache key includes the format and quality, so a run with other settings
    ///     makes its own thumbnail from the original, never from a lossy one made for others.
    ///   - maintainsLimits: sweep the disk cache as a loading run does: entries unused for
    ///     longer than the maximum age (`--max-age`, 7 days by default) are removed as it opens,
    ///     so none is served, and a timer enforces the limits while the run lasts. `false` for
    ///     `cache has` and `cache rm`, which look up or remove the entries they name and nothing
    ///     else.
    init(
        cache: CacheOptions, shared: SharedCacheOption = SharedCacheOption(), tls: TLSOption = TLSOption(), console: Console,
        concurrency: Int = 6, addressPolicy: ConnectAddressPolicy = .allowAll, strictDecoding: Bool = false,
        storesThumbnails: Bool = false, thumbnailOutput: (format: ImageFormat?, quality: Int) = (nil, 85), maintainsLimits: Bool = true
    ) throws {
        let key = try cache.loadKey()
        sharedCache = try shared.open(key: key, connections: concurrency)
        let log = PictorLog(level: .warning) { level, message in console.error("pictor[\(level)]: \(message)") }
        if cache.disabled {
            diskCache = nil
        } else {
            try cache.checkIsCacheDirectory()
            do {
                var configuration = DiskCache.Configuration(directory: cache.directory)
                configuration.logger = log
                configuration.sizeLimit = Int(clamping: cache.resolvedSizeLimit().bytes)
                if let maxAge = cache.maxAge { configuration.maxAge = maxAge }
                if !maintainsLimits { configuration.sweepInterval = nil }
                configuration.maxPendingBytes = Self.maxPendingBytes
                if let key { configuration.encrypt(with: try DiskCacheEncryption(masterKey: key)) }
                diskCache = try DiskCache(configuration: configuration)
            } catch let error as DiskCacheError {
                // A key problem is the user's to fix: refuse with what to do. Anything else
                // (permission denied, not a directory, an index that cannot be rebuilt) is
                // refused too: a run asked to warm or read a cache that silently used none
                // would report success for work that was not kept.
                if error.kind == .keyMismatch { throw cache.openError(error) }
                throw CLIError.cacheUnavailable(
                    "cannot use the disk cache at \(cache.directory.path): \(error) (pass --no-cache to run without one)")
            }
        }
        var configuration = ImagePipeline.Configuration.standard(
            diskCache: diskCache, imageCache: ImageCache(configuration: Self.memoryCache),
            dataLoader: Self.dataLoader(downloads: concurrency, tls: tls, addressPolicy: addressPolicy),
            cachePolicy: cache.policy, logger: log)
        configuration.sharedCache = sharedCache
        if strictDecoding { configuration.decodingOptions.truncatedData = .fail }
        if !cache.ignoredQueryParameters.isEmpty {
            configuration.cacheKey = ImagePipeline.Configuration.urlCacheKey(ignoringQueryParameters: cache.ignoredQueryParameters)
        }
        if storesThumbnails {
            configuration.diskCachePolicy = .both
            configuration.encoder = ImageJob.outputEncoder
            configuration.processedVariantQuality = thumbnailOutput.quality
            configuration.processedVariantFormat = thumbnailOutput.format
        }
        // The fleet keeps an image as long as a local cache would.
        if let maxAge = diskCache?.configuration.maxAge ?? DiskCache.Configuration(directory: cache.directory).maxAge {
            configuration.sharedCachePolicy.timeToLive = .seconds(maxAge)
        }
        self.configuration = configuration
    }

    /// Requests a run that decodes nothing (`--data-only`) keeps waiting in the loader's queue
    /// per download, so that a freed slot starts the next transfer at once. A waiting request
    /// holds no body yet. See ``imagesInFlight(downloads:decodes:)``.
    static let requestsAheadPerDownload = 1

    /// The loader of a command. `downloads` (`--concurrency`) is the one limit on transfers,
    /// and its owner is the loader's priority queue
    /// (``/PictorCore/DataLoader/Configuration/maximumConcurrentRequests``): it never hands
    /// libcurl more. libcurl's connection caps are set to the same number, as a ceiling that
    /// never binds. Measured against the earlier design (twice as many requests handed to
    /// libcurl, its connection cap binding): the same throughput and CPU within the noise
    /// (docs/benchmarks.md, N2-cli). `tls` says which certificate authorities the transport
    /// trusts and which client certificate it sends; `addressPolicy`, which addresses it may
    /// connect to.
    static func dataLoader(downloads: Int, tls: TLSOption = TLSOption(), addressPolicy: ConnectAddressPolicy = .allowAll) -> DataLoader {
        var transport = CurlTransport.Configuration()
        tls.apply(to: &transport)
        transport.connectAddressPolicy = addressPolicy
        transport.maximumConnectionsPerHost = downloads
        transport.maximumConnections = downloads
        return DataLoader(transport: CurlTransport(configuration: transport)) {
            $0.maximumConcurrentRequests = downloads
        }
    }

    /// Images a command holds at once for `downloads` downloads: the run's bound on memory, not
    /// a limit on any stage (the loader's queue limits downloads, the pipeline's decode queue
    /// decodes, at the cores).
    ///
    /// - A run that only fetches bytes (`decodes` false): those downloads, and as many
    ///   requests again waiting behind them in the loader's queue
    ///   (``requestsAheadPerDownload``).
    /// - A run that decodes: `downloads`. An image past its download waits for a decoder with
    ///   its original in memory, and twice as many in flight raised the peak memory of a run of
    ///   1.5 MB PNGs by half, for downloads that the decoders, not the network, pace.
    static func imagesInFlight(downloads: Int, decodes: Bool) -> Int {
        decodes ? downloads : downloads * (1 + requestsAheadPerDownload)
    }

    /// The memory cache of a command: small and bounded. A command reads each image once and
    /// writes it out; what it keeps in memory serves only a URL listed twice, while the
    /// library's default (a fifth of the machine's memory) would keep every decoded image of a
    /// long prefetch to the end and grow the process with the list. `8 MiB` holds about fifty
    /// 256-px thumbnails (a URL listed again within them is a memory hit; further back, a disk
    /// hit); an image over a tenth of it (a 512-px RGBA thumbnail, a full-size photo) is not
    /// kept. A larger one adds its whole size to a long prefetch's peak memory and serves
    /// almost nothing. At most 2,048 images, however small: `pictor serve` is asked for
    /// processed images under keys a client chooses, and a 1 × 1 result under a long cache
    /// buster costs 4 bytes against the byte limit but its key and bookkeeping in memory.
    static let memoryCache = ImageCache.Configuration(costLimit: 8 << 20, countLimit: 2_048)

    /// Adds this run's shared-tier counters not yet recorded to the fleet's (shown by `pictor
    /// cache stats --shared-cache URL`; the pipeline records them as it goes, too); a failing
    /// tier loses them, bounded by its timeouts.
    func recordSharedStatistics() async {
        guard let pipeline = built.withLock({ $0 }) else { return }
        await pipeline.recordSharedCacheStatistics()
    }

    /// Waits for pending disk writes, so that a next process sees them.
    func flush() { diskCache?.flush() }

    func close() { flush() }
}
