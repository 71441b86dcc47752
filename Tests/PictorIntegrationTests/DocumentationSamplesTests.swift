import Foundation
import Pictor
import PictorTestSupport
import Testing

/// The code samples of the DocC catalogs (`Sources/<Module>/<Module>.docc`), compiled here so
/// that they keep matching the API. Most are never called: they would reach example.org or
/// write to `/var/cache`. Keep each function in step with the page it names.
enum DocumentationSamples {
    /// Pictor.docc/Pictor.md and GettingStarted.md, "Load an image".
    static func loadAnImage() async throws {
        let pipeline = ImagePipeline(configuration: .default)
        let url = URL(string: "https://example.org/a.jpg")!
        let response = try await pipeline.image(for: ImageRequest(url: url))
        print(response.image.width, response.image.height, response.cacheLayer)

        do {
            let response = try await pipeline.image(for: ImageRequest(url: url))
            print(response.cacheLayer)
        } catch {
            switch error.kind {
            case .loading: print("download failed:", error.localizedDescription)
            case .decoding: print("not a valid image:", error.localizedDescription)
            case .processing: print(error.processor ?? "", error.localizedDescription)
            default: break  // cancelled; the other kinds are encodedResult(for:)'s
            }
        }

        let webp = try VipsEncoder().encode(response.image, as: .webp, quality: 80)
        try webp.write(to: URL(fileURLWithPath: "a.webp"))
    }

    /// ThePipeline.md, "1. Memory": presigned URLs of one object share its entries.
    static func presignedURLs() -> ImagePipeline {
        var configuration = ImagePipeline.Configuration.default
        configuration.cacheKey = ImagePipeline.Configuration.urlCacheKey(
            ignoringQueryParameters: ["X-Amz-*", "Expires", "Signature", "Key-Pair-Id"])
        let pipeline = ImagePipeline(configuration: configuration)
        return pipeline
    }

    /// GettingStarted.md, "Resize".
    static func resize(url: URL) -> [ImageRequest] {
        let fitted = ImageRequest(url: url, processors: [.resize(width: 256)])
        let thumbnail = ImageRequest(url: url, thumbnail: ThumbnailOptions(width: 256))
        let square = ImageRequest(url: url, processors: [
            .resize(width: 200, height: 200, contentMode: .aspectFill),
            .roundedCorners(radius: 16),
        ])
        return [fitted, thumbnail, square]
    }

    /// GettingStarted.md, "Choose the cache layers".
    static func cacheLayers(url: URL) throws -> ImagePipeline {
        let memory = ImageCache(configuration: .init(costLimit: 256 * 1024 * 1024))
        let directory = URL(fileURLWithPath: "/var/cache/myapp/images")
        var disk = DiskCache.Configuration(directory: directory)
        disk.sizeLimit = 500 * 1024 * 1024
        disk.maxAge = 30 * 86_400
        let diskCache = try DiskCache(configuration: disk)

        var configuration = ImagePipeline.Configuration.standard(diskCache: diskCache, imageCache: memory)
        configuration.diskCachePolicy = .both
        configuration.sharedCache = try RedisSharedCache(url: "redis://cache.internal:6379")
        _ = ImageRequest(url: url, options: [.reloadIgnoringCachedData])
        _ = ImageRequest(url: url, options: [.cacheOnly])
        return ImagePipeline(configuration: configuration)
    }

    /// GettingStarted.md, "Follow a task".
    static func followATask(pipeline: ImagePipeline, url: URL, urls: [URL]) async throws {
        let task = pipeline.imageTask(for: ImageRequest(url: url, priority: .low))
        Task { for await progress in task.progress { print(progress.fraction ?? 0) } }
        task.setPriority(.high)
        let image = try await task.image
        print(image.width)

        let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .diskCache)
        prefetcher.startPrefetching(with: urls)
        await prefetcher.waitUntilIdle()
        print(prefetcher.statistics.completed, prefetcher.statistics.failed)
    }

    /// EncryptedCache.md and PictorCrypto.md.
    static func encryptedCache() throws {
        let directory = URL(fileURLWithPath: "/var/cache/myapp")
        let key = try EncryptionKey(contentsOfFile: "/etc/myapp/pictor.key")
        let disk = try DiskCache.standard(directory: directory, encryptionKey: key)
        _ = ImagePipeline(configuration: .standard(diskCache: disk))

        var configuration = DiskCache.Configuration(directory: directory)
        configuration.sizeLimit = 1024 * 1024 * 1024
        configuration.encrypt(with: try DiskCacheEncryption(masterKey: key))
        _ = try DiskCache(configuration: configuration)
    }

    /// PictorCore.md.
    static func makePipeline(decoder: any ImageDecoding) -> ImagePipeline {
        let configuration = ImagePipeline.Configuration(
            dataLoader: DataLoader(),
            decoder: decoder,
            imageCache: ImageCache.shared)
        return ImagePipeline(configuration: configuration)
    }

    /// PictorDiskCache.md.
    static func diskCache(jpegBytes: Data) throws -> Data? {
        let directory = URL(fileURLWithPath: "/var/cache/myapp")
        var configuration = DiskCache.Configuration(directory: directory)
        configuration.sizeLimit = 500 * 1024 * 1024
        let cache = try DiskCache(configuration: configuration)
        let key = "https://example.org/a.jpg"
        cache.store(jpegBytes, for: key, metadata: DataCacheMetadata(etag: "\"v1\""))
        return cache.data(for: key)
    }

    /// PictorVips.md.
    static func vips(data: Data) throws -> Data {
        let options = ImageDecodingOptions(thumbnail: ThumbnailOptions(width: 256))
        let thumbnail = try ImageDecoderRegistry.vips.decode(data, options: options)
        return try VipsEncoder().encode(thumbnail, as: .webp, quality: 80)
    }

    /// PictorCurl.md.
    static func curl() -> DataLoader {
        var transport = CurlTransport.Configuration()
        transport.maximumConnectionsPerHost = 8
        return DataLoader(transport: CurlTransport(configuration: transport))
    }

    /// PictorCurl.md, "Refusing private addresses".
    static func curlRefusingPrivateAddresses() -> DataLoader {
        var transport = CurlTransport.Configuration()
        transport.connectAddressPolicy = .publicOnly
        return DataLoader(transport: CurlTransport(configuration: transport))
    }

    /// PictorRedis.md.
    static func redis() throws -> ImagePipeline {
        let key = try EncryptionKey(contentsOfFile: "/etc/myapp/pictor.key")
        var configuration = ImagePipeline.Configuration.default
        configuration.sharedCache = try RedisSharedCache(url: "redis://cache.internal:6379", masterKey: key)
        configuration.sharedCachePolicy.timeToLive = .seconds(7 * 86_400)
        return ImagePipeline(configuration: configuration)
    }
}

@Suite struct DocumentationSamplesTests {
    /// PictorTestSupport.md's sample, run as it is written there.
    @Test func theSecondLoadComesFromMemory() async throws {
        let url = URL(string: "https://example.test/a.img")!
        let loader = MockDataLoader()
        loader.stub(url, data: TestImageCodec.encode(width: 64, height: 64))
        let decoder = CountingImageDecoder()
        let pipeline = ImagePipeline(configuration: .init(
            dataLoader: loader, decoder: decoder, imageCache: ImageCache()))

        let first = try await pipeline.image(for: ImageRequest(url: url))
        let second = try await pipeline.image(for: ImageRequest(url: url))
        #expect(first.cacheLayer == .network)
        #expect(second.cacheLayer == .memory)
        #expect(loader.loadCount(for: url) == 1)
        #expect(decoder.decodeCount == 1)
    }

    /// Getting Started says that `.resize(width: 256)` and `ThumbnailOptions(width: 256)` do the
    /// same work: the leading resize is decoded at the same thumbnail size.
    @Test func theResizeSampleDecodesAtTheThumbnailSize() {
        let url = URL(string: "https://example.test/a")!
        let requests = DocumentationSamples.resize(url: url)
        let resize = requests[0].processors.first?.decodeTimeThumbnail
        #expect(resize == requests[1].thumbnail)
    }
}
