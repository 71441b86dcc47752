import Foundation
import Testing
import PictorTestSupport

/// The fleet tier is a shared cache, tried as a new user would: one redis-server, and `pictor`
/// processes standing for the users of a fleet, each with its own empty disk cache, in front of
/// an origin that serves each signed-in user their own image (RFC 9111 §3, §3.5, §5.2.2.10).
@Suite(.serialized, .enabled(if: BinaryRunner.isAvailable && FaultServer.isAvailable && RedisServer.isAvailable,
                             "needs the built pictor binary, the fault server and redis-server"))
struct FleetPrivacyTests {
    /// The origin, the fleet's Redis and a folder for the processes' caches.
    struct Fleet {
        let server: FaultServer
        let redis: RedisServer
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-privacy-\(UUID().uuidString)")

        init() async throws {
            server = try await offPool { try FaultServer() }
            redis = try await offPool { try RedisServer() }
            try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        }

        func stop() {
            server.stop()
            redis.stop()
            try? FileManager.default.removeItem(at: temp)
        }

        /// One process: a data-only prefetch of `path` with its own cache and `headers`.
        func prefetch(_ path: String, _ headers: [String] = []) async throws -> BinaryRunner.Outcome {
            let cache = temp.appendingPathComponent("cache-\(UUID().uuidString)").path
            let list = temp.appendingPathComponent("urls-\(UUID().uuidString).txt")
            try server.url(path).absoluteString.write(to: list, atomically: false, encoding: .utf8)
            let arguments = ["prefetch", list.path, "--data-only", "--cache-dir", cache,
                             "--shared-cache", redis.url + "?command_timeout=10s&connect_timeout=5s"] + headers.flatMap { ["-H", $0] }
            return try await offPool { try BinaryRunner.runBlocking(arguments) }
        }
    }

    /// `(Cache-Control, each process's headers, the counter the first process reports)`: every
    /// process after the first downloads again, never being served the first one's image.
    @Test(arguments: [
        ("private, max-age=3600", [["Cookie: s=1"], ["Cookie: s=2"]], "not shared: 1 private"),
        ("max-age=3600", [["Authorization: Bearer token-A"], ["Authorization: Bearer token-B"], []], "not shared: 0 private, 1 authorized"),
        ("max-age=3600, s-maxage=0", [[], []], nil),
        ("max-age='3600'", [[], []], nil),
        ("max-age=100a", [[], []], nil),
    ] as [(String, [[String]], String?)])
    func noProcessIsServedWhatTheSharedRulesKeepOut(cacheControl: String, users: [[String]], reported: String?) async throws {
        let fleet = try await Fleet()
        defer { fleet.stop() }
        let cc = cacheControl.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let path = "/user?cc=\(cc)&k=\(UUID().uuidString)"
        for (i, headers) in users.enumerated() {
            let run = try await fleet.prefetch(path, headers)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("shared 0, network 1"), "user \(i) of \(cacheControl): \(run.stdout)")
            if i == 0, let reported {
                #expect(run.stdout.contains(reported), "\(run.stdout)")
            }
        }
        let requests = try fleet.server.requests(prefix: path)
        #expect(requests.count == users.count, "\(cacheControl): the origin saw \(requests.count) requests")
        for (request, headers) in zip(requests, users) {
            for header in headers {
                let name = String(header.prefix(while: { $0 != ":" })).lowercased()
                #expect(request.headers[name] == String(header.dropFirst(name.count + 2)), "each user's own request reached the origin")
            }
        }
    }

    @Test func aPublicAuthorizedResponseIsSharedOnce() async throws {
        let fleet = try await Fleet()
        defer { fleet.stop() }
        let path = "/user?cc=public%2C%20max-age%3D3600&k=\(UUID().uuidString)"
        _ = try await fleet.prefetch(path, ["Authorization: Bearer token-A"])
        let second = try await fleet.prefetch(path, ["Authorization: Bearer token-B"])
        #expect(second.stdout.contains("shared 1, network 0"), "\(second.stdout)")
        #expect(try fleet.server.requestCount(prefix: path) == 1)
    }
}
