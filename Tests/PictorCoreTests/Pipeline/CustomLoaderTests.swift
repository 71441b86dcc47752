import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import PictorTestSupport
import Synchronization
import Testing

/// A ``DataLoading`` other than ``DataLoader`` goes through the same protocol as Pictor's own:
/// its statuses are judged as the loader judges them, and redirects it followed are never
/// silently lost to the freshness rules.
@Suite struct CustomLoaderTests {
    /// Answers every request with `status`, `headers` and an image, its final URL `finalURL`
    /// when given (a loader that follows redirects itself, as URLSession does), and counts.
    final class FoundationStyleLoader: DataLoading {
        let status: Int, headers: [String: String], finalURL: URL?
        let count = Atomic<Int>(0)

        init(status: Int = 200, headers: [String: String], finalURL: URL? = nil) {
            (self.status, self.headers, self.finalURL) = (status, headers, finalURL)
        }

        func loadData(for request: URLRequest, options: DataLoadOptions) async throws -> (Data, URLResponse) {
            count.add(1, ordering: .relaxed)
            let url = finalURL ?? request.url!
            return (TestImageCodec.encode(width: 8, height: 8), HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!)
        }
    }

    static let url = URL(string: "https://images.example.test/a.img")!

    func pipeline(_ loader: any DataLoading, cache: InMemoryDataCache) -> ImagePipeline {
        ImagePipeline(configuration: .init(dataLoader: loader, decoder: CountingImageDecoder(), dataCache: cache))
    }

    @Test func aFinalURLOtherThanTheOneAskedForIsStoredStale() async throws {
        let cache = InMemoryDataCache()
        let loader = FoundationStyleLoader(headers: ["Cache-Control": "max-age=3600"], finalURL: URL(string: "https://cdn.example.test/a.img")!)
        let pipeline = pipeline(loader, cache: cache)
        let first = try await pipeline.data(for: ImageRequest(url: Self.url))
        #expect(first.cacheLayer == .network)
        #expect(first.isStaleOnArrival, "an unseen redirect may have been temporary")
        _ = try await pipeline.data(for: ImageRequest(url: Self.url))
        #expect(loader.count.load(ordering: .relaxed) == 2)
    }

    @Test func theSameURLIsFreshByItsHeaders() async throws {
        let cache = InMemoryDataCache()
        let loader = FoundationStyleLoader(headers: ["Cache-Control": "max-age=3600"])
        let pipeline = pipeline(loader, cache: cache)
        _ = try await pipeline.data(for: ImageRequest(url: Self.url))
        #expect(try await pipeline.data(for: ImageRequest(url: Self.url)).cacheLayer == .disk)
        #expect(loader.count.load(ordering: .relaxed) == 1)
    }

    @Test(arguments: [206, 300, 404, 500, 304])
    func aStatusTheLoaderDidNotJudgeFailsAndIsNotStored(status: Int) async throws {
        let cache = InMemoryDataCache()
        let pipeline = pipeline(FoundationStyleLoader(status: status, headers: ["Cache-Control": "max-age=3600"]), cache: cache)
        await #expect(throws: ImagePipeline.Error.self) { try await pipeline.data(for: ImageRequest(url: Self.url)) }
        #expect(cache.entry(for: Self.url.absoluteString) == nil)
    }

    @Test func redirectsAReportedByTheLoaderLimitFreshness() async throws {
        struct ReportingLoader: DataLoading {
            func loadData(for request: URLRequest, options: DataLoadOptions) async throws -> (Data, URLResponse) {
                let result = try await load(request, options: options)
                return (result.data, result.response)
            }
            func load(_ request: URLRequest, options: DataLoadOptions) async throws -> DataLoadResult {
                let final = HTTPURLResponse(url: URL(string: "https://cdn.example.test/a.img")!, statusCode: 200,
                                            httpVersion: "HTTP/1.1", headerFields: ["Cache-Control": "max-age=3600"])!
                let hop = HTTPResponseHead(url: request.url!, statusCode: 301, fields: [.init(name: "Location", value: "https://cdn.example.test/a.img")])
                return DataLoadResult(data: TestImageCodec.encode(width: 8, height: 8), response: final, redirects: [hop])
            }
        }
        let cache = InMemoryDataCache()
        let pipeline = pipeline(ReportingLoader(), cache: cache)
        let first = try await pipeline.data(for: ImageRequest(url: Self.url))
        #expect(!first.isStaleOnArrival, "a permanent redirect does not limit freshness")
        #expect(try await pipeline.data(for: ImageRequest(url: Self.url)).cacheLayer == .disk)
    }
}
