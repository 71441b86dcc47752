import Foundation
import PictorCore
import PictorCrypto
import PictorCurl
import PictorDiskCache
import PictorVips

extension ImagePipeline.Configuration {
    /// The Linux stack: ``/PictorCore/ImageCache/shared`` in memory, a ``/PictorDiskCache/DiskCache`` at
    /// ``PictorDiskCache/DiskCache/defaultDirectory(environment:)`` (plain) with HTTP caching, a ``/PictorCore/DataLoader`` (shared by
    /// every default configuration), `ImageDecoderRegistry.vips` (the libjpeg-turbo, libspng
    /// and libwebp decoders for the files they accept, then libvips) and ``/PictorVips/VipsRenderer``, and
    /// ``/PictorVips/VipsEncoder/processedVariants`` for the resized images kept on disk.
    ///
    /// Every configuration made from `.default` shares one ``/PictorDiskCache/DiskCache`` instance, opened on
    /// first use. When the default directory cannot be opened (read-only home, a cache
    /// encrypted by `pictor --key-file`, …) the pipeline works without a disk cache and logs one
    /// warning.
    public static var `default`: ImagePipeline.Configuration {
        .standard(diskCache: DefaultDiskCache.shared, logger: .standardError)
    }

    /// The Linux stack around a given disk cache (or none), with SHA-256 as
    /// ``/PictorCore/ImagePipeline/Configuration/varyKeyHashing``.
    ///
    /// - Parameters:
    ///   - diskCache: the disk layer; `nil` for memory and network only.
    ///   - imageCache: the memory layer; default ``/PictorCore/ImageCache/shared``.
    ///   - dataLoader: the network layer; default ``DataLoader/shared`` (one connection pool
    ///     per process).
    ///   - cachePolicy: how disk entries are judged fresh; default ``/PictorCore/ImagePipeline/HTTPCachePolicy/http``.
    ///   - logger: where warnings go; default ``/PictorCore/PictorLog/standardError``.
    public static func standard(
        diskCache: DiskCache?,
        imageCache: (any ImageCaching)? = ImageCache.shared,
        dataLoader: any DataLoading = DataLoader.shared,
        cachePolicy: ImagePipeline.HTTPCachePolicy = .http,
        logger: PictorLog = .standardError
    ) -> ImagePipeline.Configuration {
        var configuration = ImagePipeline.Configuration(
            dataLoader: dataLoader,
            decoder: ImageDecoderRegistry.vips,
            imageCache: imageCache,
            dataCache: diskCache,
            httpCachePolicy: cachePolicy,
            encoder: VipsEncoder.processedVariants,
            renderer: VipsRenderer(),
            logger: logger)
        // Entries of responses with `Vary` record the request's values by their SHA-256.
        configuration.varyKeyHashing = SHA256KeyHashing()
        // A response with neither freshness nor validators is kept as long as the disk cache
        // keeps anything.
        if let maxAge = diskCache?.configuration.maxAge { configuration.defaultFreshnessLifetime = maxAge }
        return configuration
    }
}

extension DataLoader {
    /// The loader of ``ImagePipeline/Configuration/default`` and of `.standard(...)`
    /// configurations: the default ``/PictorCore/DataLoader/Configuration`` over one ``/PictorCurl/CurlTransport``,
    /// created on first use and shared, so every pipeline of the process reuses its
    /// connections.
    public static let shared = DataLoader.standard()

    /// A loader over ``/PictorCurl/CurlTransport`` (libcurl's multi interface), Pictor's transport on Linux.
    ///
    /// - Parameters:
    ///   - maximumConcurrentRequests: transfers at once; `6` by default. The transport keeps at
    ///     least as many connections per host.
    ///   - transport: the transport's settings: which certificate authorities to trust
    ///     (`caFile`, `caPath`, or the environment's, as curl reads them, with
    ///     `trustCertificateAuthorities(fromEnvironment:)`), the client certificate and key for
    ///     mutual TLS, the HTTP version, …; the defaults of
    ///     ``/PictorCurl/CurlTransport/Configuration`` (libcurl's own CAs) by default.
    ///   - configure: changes to the rest of the ``/PictorCore/DataLoader/Configuration``.
    public static func standard(
        maximumConcurrentRequests: Int = 6,
        transport: CurlTransport.Configuration = CurlTransport.Configuration(),
        _ configure: (inout DataLoader.Configuration) -> Void = { _ in }
    ) -> DataLoader {
        var transport = transport
        transport.maximumConnectionsPerHost = max(transport.maximumConnectionsPerHost, maximumConcurrentRequests)
        var configuration = DataLoader.Configuration()
        configuration.maximumConcurrentRequests = maximumConcurrentRequests
        configure(&configuration)
        return DataLoader(transport: CurlTransport(configuration: transport), configuration: configuration)
    }
}

extension ImagePipeline {
    /// A pipeline on ``ImagePipeline/Configuration/default``, created on first use.
    public static let shared = ImagePipeline(configuration: .default)
}

extension DiskCache {
    /// `$XDG_CACHE_HOME/pictor`, else `~/.cache/pictor` (XDG Base Directory specification).
    ///
    /// As the specification says, a relative `XDG_CACHE_HOME` is invalid and ignored (it would
    /// put the cache wherever the process happens to run), as is an empty one.
    ///
    /// - Parameter environment: where `XDG_CACHE_HOME` and `HOME` are read; the process environment
    ///   by default.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("pictor", isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".cache/pictor", isDirectory: true)
    }

    /// Opens the disk cache at `directory` with the default limits, encrypted when a key is given.
    ///
    /// - Parameters:
    ///   - directory: the cache directory, created if missing.
    ///   - encryptionKey: the master key; when set, entries are AES-256-GCM sealed and named by
    ///     HMAC-SHA256 (``/PictorCrypto/DiskCacheEncryption``).
    ///   - logger: where warnings go.
    /// - Throws: ``/PictorDiskCache/DiskCacheError`` when the directory or index cannot be opened,
    ///   ``/PictorCrypto/CryptoError`` when the key derivation fails.
    public static func standard(directory: URL, encryptionKey: EncryptionKey? = nil, logger: PictorLog = .standardError) throws -> DiskCache {
        var configuration = DiskCache.Configuration(directory: directory)
        configuration.logger = logger
        if let encryptionKey { configuration.encrypt(with: try DiskCacheEncryption(masterKey: encryptionKey)) }
        return try DiskCache(configuration: configuration)
    }
}

/// The disk cache behind ``ImagePipeline/Configuration/default``, opened once per process.
enum DefaultDiskCache {
    static let shared: DiskCache? = {
        let log = PictorLog.standardError
        do {
            return try DiskCache.standard(directory: DiskCache.defaultDirectory(), logger: log)
        } catch {
            log.log(.warning, "disk cache disabled: \(error)")
            return nil
        }
    }()
}
