import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorCore
import PictorTestSupport
import Testing

/// End to end against nginx serving the shared corpus: real files, ETag / Last-Modified.
@Suite(.enabled(if: NginxServer.isAvailable), .timeLimit(.minutes(5)))
struct NginxLoadingTests {
    @Test func corpusImagesLoadAndRevalidateWith304() async throws {
        // Given nginx serving the corpus and an HTTP-policy pipeline whose entries are stale
        let server = try NginxServer.start(root: LoadingFixtures.corpus)
        defer { server.stop() }
        let cache = InMemoryDataCache()
        let pipeline = ImagePipeline(configuration: ImagePipeline.Configuration(
            dataLoader: DataLoader(), decoder: CountingImageDecoder(), dataCache: cache))
        let path = "/pngsuite/basn2c08.png"
        let url = server.url(path)

        // When fetched twice (nginx sends ETag and Last-Modified but no max-age; the heuristic
        // freshness keeps it fresh), then again after the entry is marked stale
        let first = try await pipeline.data(for: ImageRequest(url: url))
        let second = try await pipeline.data(for: ImageRequest(url: url))
        var stale = try #require(cache.entry(for: url.absoluteString)).metadata
        stale.expiresAt = Date(timeIntervalSince1970: 0)
        cache.updateMetadata(stale, for: url.absoluteString)
        let third = try await pipeline.data(for: ImageRequest(url: url))

        // Then
        #expect(first.cacheLayer == .network)
        #expect(first.data == (try Data(contentsOf: LoadingFixtures.corpus.appendingPathComponent(path))))
        #expect(stale.etag != nil)
        #expect(second.cacheLayer == .disk && !second.isRevalidated)
        #expect(third.cacheLayer == .disk && third.isRevalidated)
        #expect(third.data == first.data)
        let logged = try server.loggedRequests().filter { $0.uri == path }
        #expect(logged.map(\.status) == [200, 304])
        #expect(logged.last?.ifNoneMatch == stale.etag)
    }

    @Test func manyDistinctImagesWithBoundedConcurrency() async throws {
        let server = try NginxServer.start(root: LoadingFixtures.corpus)
        defer { server.stop() }
        let names = try FileManager.default.contentsOfDirectory(atPath: LoadingFixtures.corpus.appendingPathComponent("pngsuite").path)
            .filter { $0.hasSuffix(".png") && !$0.hasPrefix("x") }.sorted().prefix(40)
        let loader = DataLoader()
        let loaded = try await withThrowingTaskGroup(of: Int.self) { group in
            for name in names {
                group.addTask { try await loader.data(for: URLRequest(url: server.url("/pngsuite/\(name)"))).0.count }
            }
            var count = 0
            for try await _ in group { count += 1 }
            return count
        }
        #expect(loaded == names.count)
        #expect(try server.loggedRequests().count == names.count)
    }
}
