import Foundation
@testable import PictorRedis
import PictorTestSupport

extension Data {
    /// UTF-8 bytes of `text`, for terse command arguments.
    static func utf8(_ text: String) -> Data { Data(text.utf8) }
}

/// A client for `url` with the default configuration, failing the test on a bad URL.
func makeClient(_ url: String, configure: (inout RedisConfiguration) -> Void = { _ in }) throws -> RedisClient {
    var configuration = try RedisConfiguration(url: url)
    configure(&configuration)
    return RedisClient(configuration)
}

/// Retries `body` every 50 ms until it succeeds or `seconds` pass; returns its last result.
func eventually<T>(within seconds: Double, _ body: () async throws -> T) async -> Result<T, any Error> {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        do {
            return .success(try await body())
        } catch {
            if Date() >= deadline { return .failure(error) }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}
