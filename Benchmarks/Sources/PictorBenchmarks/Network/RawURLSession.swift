import Foundation
import PictorCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reference for N1: plain URLSession with no cache, async `data(for:)`: the ceiling of a loader
/// built on URLSession (Pictor's transport before libcurl).
final class RawURLSessionLoader: DataLoading {
    let session: URLSession

    init(connections: Int) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpMaximumConnectionsPerHost = connections
        session = URLSession(configuration: configuration)
    }

    func loadData(for request: URLRequest, options: DataLoadOptions) async throws -> (Data, URLResponse) {
        try await session.data(for: request)
    }

    deinit { session.invalidateAndCancel() }
}
