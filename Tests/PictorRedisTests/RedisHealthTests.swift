import Foundation
import PictorCore
import Testing
@testable import PictorRedis
import PictorTestSupport

/// `RedisSharedCache.ping(timeout:)` and `health(timeout:)`: a health endpoint's question,
/// answered within its deadline whatever the server does. No wall-clock upper bounds: the calls
/// returning, with the right answer, is the point.
@Suite(.enabled(if: RedisServer.isAvailable), .serialized)
struct RedisHealthTests {
    @Test func aServerThatAnswersIsUsable() async throws {
        let server = try RedisServer()
        defer { server.stop() }
        // Generous timeouts: the deadline is not under test, and on a loaded test machine each
        // step of a PING (topology, lease, the reply's resume) waits for a thread of Swift's
        // pool, which other tests keep busy: 10 s was not enough in a CI run.
        let cache = try RedisSharedCache(url: server.url + "?command_timeout=60s&connect_timeout=60s")
        try await cache.ping(timeout: .seconds(120))
        #expect(await cache.health(timeout: .seconds(120)) == .usable)
    }

    @Test func aStoppedServerIsUnusableWithItsReason() async throws {
        let server = try RedisServer()
        let cache = try RedisSharedCache(url: server.url)
        server.stop()
        guard case .unusable(let reason) = await cache.health(timeout: .seconds(5)) else {
            Issue.record("a stopped server was usable")
            return
        }
        #expect(reason.hasPrefix("redis does not answer ("), "\(reason)")
    }

    @Test func aServerThatNeverAnswersTimesOutAtTheDeadline() async throws {
        // Listening, so the connection opens (in the kernel's queue), and never accepting or
        // answering: only the deadline ends the wait.
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 8) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        try #require(ready)
        let port = Int(UInt16(bigEndian: address.sin_port))
        // The client's own timeouts are long, so that the deadline is what ends the call.
        let cache = try RedisSharedCache(url: "redis://127.0.0.1:\(port)?connect_timeout=30s&command_timeout=30s")
        await #expect(throws: RedisError.timeout) { try await cache.ping(timeout: .milliseconds(50)) }
    }
}
