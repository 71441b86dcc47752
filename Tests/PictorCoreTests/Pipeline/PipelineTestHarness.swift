import Foundation
@testable import PictorCore
import PictorTestSupport
import Synchronization

/// A minimal in-memory ``DataCaching`` private to the pipeline tests (the shared fake lives with
/// the loading layer). Keys are told apart by their UTF-8 bytes, as the disk cache's hashed
/// names are (a `String` key would merge canonically equivalent spellings).
final class TestDataCache: DataCaching, Sendable {
    private let entries = Mutex<[Data: DataCacheEntry]>([:])
    private let removals = Mutex<[String]>([])

    func entry(for key: String) -> DataCacheEntry? { entries.withLock { $0[Data(key.utf8)] } }
    func contains(_ key: String) -> Bool { entries.withLock { $0[Data(key.utf8)] != nil } }
    func store(_ data: Data, for key: String, metadata: DataCacheMetadata) {
        entries.withLock { $0[Data(key.utf8)] = DataCacheEntry(data: data, metadata: metadata) }
    }
    func updateMetadata(_ metadata: DataCacheMetadata, for key: String) {
        entries.withLock { $0[Data(key.utf8)]?.metadata = metadata }
    }
    func removeData(for key: String) {
        entries.withLock { $0[Data(key.utf8)] = nil }
        removals.withLock { $0.append(key) }
    }
    func removeAll() { entries.withLock { $0.removeAll() } }

    var keys: Set<String> { entries.withLock { Set($0.keys.map { String(decoding: $0, as: UTF8.self) }) } }
    var removedKeys: [String] { removals.withLock { $0 } }
}

/// One pipeline with every fake, built per test.
struct Harness {
    let network: MockDataLoader
    let decoder = CountingImageDecoder()
    let encoder = TestImageEncoder()
    let memory = RecordingImageCache()
    let disk: TestDataCache
    let renderer = InMemoryRenderer()
    let processors = ProcessorLog()
    let pipeline: ImagePipeline

    init(
        policy: ImagePipeline.DiskCachePolicy = .original, memoryCache: Bool = true,
        configure: (inout ImagePipeline.Configuration) -> Void = { _ in }
    ) {
        let disk = TestDataCache()
        self.disk = disk
        network = MockDataLoader()
        // Stage tests serve any disk entry as is; HTTP freshness has its own tests.
        var configuration = ImagePipeline.Configuration(
            dataLoader: network, decoder: decoder, imageCache: memoryCache ? memory : nil, dataCache: disk,
            httpCachePolicy: .ignoreHTTPHeaders, encoder: encoder, renderer: renderer, diskCachePolicy: policy)
        configure(&configuration)
        pipeline = ImagePipeline(configuration: configuration)
    }

    /// Stubs `url` with a `width × height` test image and returns a request for it.
    @discardableResult
    func stub(_ path: String = "a.img", width: Int = 64, height: Int = 48) -> URL {
        let url = URL(string: "https://example.test/\(path)")!
        network.stub(url, data: TestImageCodec.encode(width: width, height: height))
        return url
    }

    func tag(_ tag: UInt8, fails: Bool = false) -> TaggingProcessor {
        TaggingProcessor(tag: tag, fails: fails, log: processors)
    }
}

/// Runs `count` image requests concurrently and returns their results in order.
func loadConcurrently(_ pipeline: ImagePipeline, _ requests: [ImageRequest]) async -> [Result<ImageResponse, ImagePipeline.Error>] {
    await withTaskGroup(of: (Int, Result<ImageResponse, ImagePipeline.Error>).self) { group in
        for (i, request) in requests.enumerated() {
            group.addTask {
                do throws(ImagePipeline.Error) { return (i, .success(try await pipeline.image(for: request))) } catch { return (i, .failure(error)) }
            }
        }
        var results = [Result<ImageResponse, ImagePipeline.Error>?](repeating: nil, count: requests.count)
        for await (i, result) in group { results[i] = result }
        return results.map { $0! }
    }
}

/// Polls until `condition` holds: for states a test cannot await directly (requests joining
/// shared work). The outcome never depends on timing; the short naps only keep the poll from
/// hogging the two cooperative threads (a spinning poll starves Dispatch work on this machine).
/// The test's time limit bounds it.
func until(_ condition: () -> Bool) async {
    var polls = 0
    // A cancelled task (the test's time limit passed) stops at once rather than spinning on a
    // sleep that no longer sleeps.
    while !condition(), !Task.isCancelled {
        polls += 1
        if polls < 16 { await Task.yield() } else { try? await Task.sleep(for: .microseconds(200)) }
    }
}

extension Harness {
    /// Waits until `count` callers wait on whole image loads.
    func waitForCallers(_ count: Int) async {
        await until { pipeline.waitingCallerCount >= count }
    }
}
