import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorCore
import PictorTestSupport
import Testing

/// End to end against nginx serving the shared corpus: real files, ETag / Last-Modified.
@Suite(.enabled(if: NginxServer.isAvailable), .timeLimit(.minutes(1)))
struct NginxLoadingTests {
    @Test func corpusImagesLoadAndRevalidateWith304() async throws {
        // Given nginx serving the corpus and an HTTP-policy fetcher whose entries are stale
        let server = try NginxServer.start(root: LoadingFixtures.corpus)
        defer { server.stop() }
        let cache = InMemoryDataCache()
        let fetcher = ImageDataFetcher(loader: DataLoader(), cache: cache)
        let path = "/pngsuite/basn2c08.png"
        let url = server.url(path)
        let request = DataFetchRequest(urlRequest: URLRequest(url: url), cacheKey: url.absoluteString)

        // When fetched twice (nginx sends ETag and Last-Modified but no max-age; the heuristic
        // freshness keeps it fresh), then again after the entry is marked stale
        let first = try await fetcher.fetchData(for: request) { _ in }
        let second = try await fetcher.fetchData(for: request) { _ in }
        var stale = try #require(cache.entry(for: url.absoluteString)).metadata
        stale.expiresAt = Date(timeIntervalSince1970: 0)
        cache.updateMetadata(stale, for: url.absoluteString)
        let third = try await fetcher.fetchData(for: request) { _ in }

        // Then
        #expect(first.source == .network)
        #expect(first.data == (try Data(contentsOf: LoadingFixtures.corpus.appendingPathComponent(path))))
        #expect(first.metadata.etag != nil)
        #expect(second.source == .disk)
        #expect(third.source == .revalidated)
        #expect(third.data == first.data)
        let logged = try server.loggedRequests().filter { $0.uri == path }
        #expect(logged.map(\.status) == [200, 304])
        #expect(logged.last?.ifNoneMatch == first.metadata.etag)
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
