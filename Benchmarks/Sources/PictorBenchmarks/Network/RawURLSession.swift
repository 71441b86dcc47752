import Foundation
import PictorCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reference for N1: plain URLSession with no cache, 6 connections per host, async `data(for:)`
/// — what a loader built on URLSession cannot beat by much.
final class RawURLSessionLoader: DataLoading {
    let session: URLSession

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpMaximumConnectionsPerHost = 6
        session = URLSession(configuration: configuration)
    }

    func loadData(for request: URLRequest, options: DataLoadOptions) async throws -> (Data, URLResponse) {
        try await session.data(for: request)
    }

    deinit { session.invalidateAndCancel() }
}
