import Foundation
@testable import PictorRedis
import PictorTestSupport

extension Data {
    /// UTF-8 bytes of `text`, for terse command arguments.
    static func utf8(_ text: String) -> Data { Data(text.utf8) }
}

/// Timeouts for a client whose timeouts are not under test, as URL query options. A
/// redis-server or client slowed by a sanitizer, or by tests sharing two cores, can take longer
/// than the defaults (50 ms to connect, 200 ms per command) with nothing wrong.
let patientTimeouts = "connect_timeout=5s&command_timeout=10s"

/// `url` with ``patientTimeouts`` added to its query.
func patient(_ url: String) -> String {
    url + (url.contains("?") ? "&" : "?") + patientTimeouts
}

/// A client for `url`, failing the test on a bad URL. Its timeouts are ``patientTimeouts``;
/// only a test of the timeouts themselves passes `defaultTimeouts` (and writes what it needs
/// through `RedisServer.command`, which a slow machine cannot time out).
func makeClient(_ url: String, defaultTimeouts: Bool = false,
                configure: (inout RedisConfiguration) -> Void = { _ in }) throws -> RedisClient {
    var configuration = try RedisConfiguration(url: defaultTimeouts ? url : patient(url))
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
