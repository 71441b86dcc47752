import Foundation
import Pictor
import PictorTestSupport
import Synchronization
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

    /// ThePipeline.md, "Previews while the bytes arrive".
    static func previews(_ pipeline: ImagePipeline, url: URL, show: @escaping @Sendable (Image) -> Void) async throws {
        let task = pipeline.imageTask(for: ImageRequest(url: url, thumbnail: ThumbnailOptions(width: 512),
                                                        options: [.progressivePreviews]))
        Task { for await preview in task.previews { show(preview.image) } }   // coarse to fine
        show(try await task.image)                                             // always after the last preview
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

    /// ReusedViews.md, "The target".
    final class Slot: ImageLoadingTarget {
        private let shown = Mutex<Image?>(nil)

        var image: Image? { shown.withLock { $0 } }

        func display(_ image: Image?, phase: ImageLoadingPhase) {
            shown.withLock { $0 = image }
            if case .failure(let error) = phase { print("slot failed:", error.localizedDescription) }
        }
    }

    /// ReusedViews.md, "Bind and load" and "Completion"; returns the binder.
    @discardableResult
    static func reusedViews(
        pipeline: ImagePipeline, url: URL, otherURL: URL, grey: Image, broken: Image, slot: Slot = Slot(),
        deliveryQueue: DispatchQueue = .main
    ) -> ImageTargetBinder<Slot> {
        let binder = ImageTargetBinder(target: slot, pipeline: pipeline, deliveryQueue: deliveryQueue)
        binder.setImage(with: ImageRequest(url: url, processors: [.resize(width: 128)]),
                        placeholder: grey, failureImage: broken)
        // The cell is reused for another image before the first one arrived:
        binder.setImage(with: ImageRequest(url: otherURL), placeholder: grey)

        binder.setImage(with: ImageRequest(url: url), placeholder: grey) { result in
            switch result {
            case .success(let response): print("shown from", response.cacheLayer)
            case .failure(let error) where error.kind == .cancelled: break   // replaced by a newer request
            case .failure(let error): print("failed:", error.localizedDescription)
            }
        }
        return binder
    }

    /// WritingAProcessor.md, "Pixels in, pixels out".
    struct Invert: ImageProcessing {
        var identifier: String { "com.example.invert" }

        func process(_ image: Image, context: ImageProcessingContext) throws -> Image {
            let colourBands = image.hasAlpha ? image.bands - 1 : image.bands
            let frames = image.frames.map { frame -> Image.Frame in
                var pixels = frame.pixels
                pixels.withUnsafeMutableBytes { bytes in
                    for i in 0..<bytes.count where i % image.bands < colourBands { bytes[i] = 255 - bytes[i] }
                }
                return Image.Frame(pixels: pixels, duration: frame.duration)
            }
            var output = image
            output.frames = frames
            return output
        }
    }

    /// WritingAProcessor.md, the requests.
    static func processors(url: URL) -> [ImageRequest] {
        let request = ImageRequest(url: url, processors: [.resize(width: 256), Invert()])
        let sepia = ImageProcessors.custom(identifier: "com.example.sepia") { image, context in
            try context.renderer.grayscale(image)   // then tint it, …
        }
        let tinted = ImageRequest(url: url, processors: [sepia])
        let inline = ImageRequest(url: url, processors: [.custom(identifier: "com.example.sepia") { image, _ in image }])
        return [request, tinted, inline]
    }

    /// Prefetching.md.
    static func prefetching(pipeline: ImagePipeline, disk: DiskCache, urls: [URL], rows: [URL]) async {
        let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .diskCache)
        prefetcher.startPrefetching(with: urls)
        await prefetcher.waitUntilIdle()
        let s = prefetcher.statistics
        print(s.completed, s.failed, s.diskHits, s.networkLoads)

        let loader = DataLoader.standard(maximumConcurrentRequests: 8) { configuration in
            configuration.maximumConcurrentBackgroundRequests = 3
        }
        let prefetching = ImagePipeline(configuration: .standard(diskCache: disk, dataLoader: loader))
        _ = prefetching

        let requests = rows.map { ImageRequest(url: $0, processors: [.resize(width: 128)]) }
        let warm = ImagePrefetcher(pipeline: pipeline) { request, outcome in
            if case .failure(let error) = outcome { print(request.url?.absoluteString ?? "", error.localizedDescription) }
        }
        warm.startPrefetching(with: requests)
        warm.stopPrefetching(with: Array(requests.prefix(10)))   // scrolled past them
    }

    /// SharedTier.md.
    static func sharedTier() async throws {
        let key = try EncryptionKey(contentsOfFile: "/etc/myapp/pictor.key")
        let disk = try DiskCache.standard(directory: URL(fileURLWithPath: "/var/cache/myapp"), encryptionKey: key)

        var configuration = ImagePipeline.Configuration.standard(diskCache: disk)
        configuration.sharedCache = try RedisSharedCache(url: "redis://cache.internal:6379", masterKey: key)
        configuration.sharedCachePolicy.timeToLive = .seconds(7 * 86_400)   // the default
        let pipeline = ImagePipeline(configuration: configuration)

        await pipeline.recordSharedCacheStatistics()   // the counters since the last record
        disk.flush()                                   // staged disk writes and access times
    }

    /// ErrorsAndRetries.md.
    static func errorsAndRetries(pipeline: ImagePipeline, disk: DiskCache, url: URL) async -> ImagePipeline {
        do {
            let response = try await pipeline.image(for: ImageRequest(url: url))
            print(response.cacheLayer)
        } catch {
            switch error.kind {
            case .cancelled: break
            case .loading where error.dataLoadingError?.isTransient == false:
                print("permanent:", error.localizedDescription)   // a 404, a missing file, …: do not ask again
            default:
                print("failed:", error.localizedDescription)
            }
        }
        _ = { (error: ImagePipeline.Error) in error.dataLoadingError == .statusCode(404) }

        let loader = DataLoader.standard { configuration in
            configuration.retryPolicy = DataLoader.RetryPolicy(maximumRetries: 4, baseDelay: 0.25)
            configuration.timeout = 20
            configuration.failedURLPolicy = DataLoader.FailedURLPolicy()   // remember 404 and 410 for 5 minutes
        }
        let patient = ImagePipeline(configuration: .standard(diskCache: disk, dataLoader: loader))
        return patient
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
    /// ReusedViews.md's sample, run on fakes: the placeholder at once, then the last request's
    /// image, never the replaced one's; a memory hit shown before `setImage` returns.
    @Test func theReusedViewsSampleShowsTheLastRequestOnly() async throws {
        let loader = MockDataLoader()
        let url = URL(string: "https://example.test/first.img")!, other = URL(string: "https://example.test/other.img")!
        loader.stub(url, data: TestImageCodec.encode(width: 300, height: 200))
        loader.stub(other, data: TestImageCodec.encode(width: 40, height: 30))
        let pipeline = ImagePipeline(configuration: .init(
            dataLoader: loader, decoder: CountingImageDecoder(), imageCache: ImageCache(), renderer: InMemoryRenderer()))
        let grey = Image(width: 1, height: 1, layout: .gray, pixels: Data([128]))
        let broken = Image(width: 1, height: 1, layout: .gray, pixels: Data([0]))
        let slot = DocumentationSamples.Slot()
        let queue = DispatchQueue(label: "reused-views")
        let binder = DocumentationSamples.reusedViews(
            pipeline: pipeline, url: other, otherURL: url, grey: grey, broken: broken, slot: slot, deliveryQueue: queue)
        #expect(slot.image == grey, "the placeholder is shown at once")
        let task = try #require(binder.currentTask)
        _ = try await task.image
        // The result reaches the slot on the delivery queue; the replaced request's never does.
        while slot.image?.width != 40 {
            #expect(slot.image == grey || slot.image?.width == 40, "only the placeholder or the last request's image")
            try await Task.sleep(for: .milliseconds(1))
        }
        // Now a memory hit: shown before setImage returns, with no task.
        #expect(binder.setImage(with: ImageRequest(url: other), placeholder: grey) == nil)
        #expect(slot.image?.width == 40)
    }

    /// WritingAProcessor.md's processor inverts colours and keeps alpha; its identifier is in
    /// the user namespace.
    @Test func theInvertSampleInvertsColoursOnly() throws {
        let image = Image(width: 1, height: 1, layout: .rgba, pixels: Data([10, 20, 30, 40]))
        let context = ImageProcessingContext(renderer: InMemoryRenderer())
        #expect(try DocumentationSamples.Invert().process(image, context: context).pixels == Data([245, 235, 225, 40]))
        #expect(ImageProcessors.cacheIdentifier(of: DocumentationSamples.Invert()) == "user:com.example.invert")
        let requests = DocumentationSamples.processors(url: URL(string: "https://example.test/a")!)
        #expect(requests.map(\.processors.count) == [2, 1, 1])
    }
}
