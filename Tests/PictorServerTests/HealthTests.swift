import Foundation
import Pictor
import PictorService
import PictorTestSupport
import Testing
@testable import PictorDiskCache
@testable import PictorServer

/// `/health` looks at the tiers: the disk cache's directory and mode, and a configured Redis
/// (which the pipeline bypasses when it does not answer, so it never makes the server
/// unhealthy).
@Suite(.serialized, .enabled(if: serverTestsCanRun, "needs nginx and ../shared/corpus"))
struct HealthTests {
    /// A fresh cache directory under the temporary directory.
    static func cacheDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("pictor-health-\(UUID().uuidString)", isDirectory: true)
    }

    /// A harness whose pipeline has `disk` and `shared`, and whose health probe is never reused.
    static func harness(disk: DiskCache? = nil, shared: (any SharedDataCache)? = nil) async throws -> ServerHarness {
        try await ServerHarness(service: { service in
            service.healthCheckInterval = 0
            // Generous: on a loaded test machine each step of a PING waits for a thread of
            // Swift's pool, which other tests keep busy; the 0.25 s default is for servers.
            service.healthCheckTimeout = 120
        }) { pipeline in
            pipeline.dataCache = disk
            pipeline.sharedCache = shared
        }
    }

    static func health(_ h: ServerHarness) async throws -> (status: Int, body: String) {
        let response = try await offPool { [port = h.port] in try TestHTTPClient.get(port: port, "/health") }
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    @Test func aUsableDiskTierIsOK() async throws {
        let directory = Self.cacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let h = try await Self.harness(disk: try DiskCache(configuration: .init(directory: directory)))
        let health = try await Self.health(h)
        await h.stop()
        #expect(health.status == 200)
        #expect(health.body == "ok\ndisk: ok\n")
    }

    @Test func healthAndMetricsAnswerGETAndHEADOnly() async throws {
        let h = try await Self.harness()
        let (post, put, head, get) = try await offPool { [port = h.port] in
            (try TestHTTPClient.get(port: port, "/health", method: "POST"), try TestHTTPClient.get(port: port, "/metrics", method: "PUT"),
             try TestHTTPClient.get(port: port, "/health", method: "HEAD"), try TestHTTPClient.get(port: port, "/metrics"))
        }
        await h.stop()
        for refused in [post, put] {
            #expect(refused.status == 405)
            #expect(refused.header("Allow") == "GET, HEAD")
            #expect(refused.header("X-Content-Type-Options") == "nosniff")
        }
        #expect(head.status == 200)
        #expect(get.status == 200)
        #expect(get.header("X-Content-Type-Options") == "nosniff")
    }

    @Test func aRemovedCacheDirectoryIs503NamingTheDiskTierUntilAWriteRecreatesIt() async throws {
        let directory = Self.cacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try DiskCache(configuration: .init(directory: directory))
        let h = try await Self.harness(disk: disk)
        try FileManager.default.removeItem(at: directory)
        let removed = try await Self.health(h)
        // What the cache really does: the next write (a cold request stores its original)
        // recreates the directory with an empty index, and the tier is usable again.
        let image = try await offPool { [port = h.port, target = h.signed("rs:fit:16:16")] in try TestHTTPClient.get(port: port, target) }
        disk.flush()
        let recreated = try await Self.health(h)
        await h.stop()
        #expect(removed.status == 503)
        #expect(removed.body == "unhealthy\ndisk: unusable: the cache directory is missing\n", "\(removed.body)")
        #expect(image.status == 200)
        #expect(FileManager.default.fileExists(atPath: directory.path))
        #expect(recreated.status == 200, "\(recreated.body)")
    }

    @Test func aReadOnlyDiskTierIs503() async throws {
        let directory = Self.cacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try DiskCache(configuration: .init(directory: directory))
        // Root writes whatever the mode bits say: open it as a read-only directory would be.
        var configuration = DiskCache.Configuration(directory: directory)
        configuration.opensReadOnly = true
        configuration.logger = .disabled
        let h = try await Self.harness(disk: try DiskCache(configuration: configuration))
        let health = try await Self.health(h)
        await h.stop()
        #expect(health.status == 503)
        #expect(health.body.hasPrefix("unhealthy\ndisk: unusable: read-only"), "\(health.body)")
    }

    @Test func aRedisThatDoesNotAnswerIsBypassedAnd200() async throws {
        // A port bound and not listening: connections to it are refused, and no one else can
        // take it while the test runs.
        let closed = try ClosedLoopbackPort()
        defer { closed.close() }
        let shared = try RedisSharedCache(url: "redis://127.0.0.1:\(closed.port)")
        let h = try await Self.harness(shared: shared)
        let health = try await Self.health(h)
        await h.stop()
        #expect(health.status == 200)
        #expect(health.body.hasPrefix("ok\nshared: bypassed: redis does not answer ("), "\(health.body)")
        #expect(health.body.hasSuffix("); images load without the fleet tier\n"), "\(health.body)")
    }

    @Test(.enabled(if: RedisServer.isAvailable, "needs redis-server"))
    func aRedisThatAnswersIsOK() async throws {
        let redis = try RedisServer()
        let h = try await Self.harness(shared: try RedisSharedCache(url: redis.url + "?command_timeout=60s&connect_timeout=30s"))
        let health = try await Self.health(h)
        await h.stop()
        #expect(health.status == 200)
        #expect(health.body == "ok\nshared: ok\n")
    }

    @Test func aProbeIsReusedWithinTheInterval() async throws {
        let directory = Self.cacheDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try DiskCache(configuration: .init(directory: directory))
        // An hour: the second probe cannot be due, however slow the machine.
        let h = try await ServerHarness(service: { $0.healthCheckInterval = 3600 }) { $0.dataCache = disk }
        let first = try await Self.health(h)
        try FileManager.default.removeItem(at: directory)
        let second = try await Self.health(h)
        await h.stop()
        #expect(first.status == 200)
        #expect(second.status == 200, "the first probe's answer is reused")
    }
}

/// A loopback TCP port bound without listening: a connection to it is refused at once.
struct ClosedLoopbackPort {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard descriptor >= 0, bound == 0, named == 0 else { throw TestHTTPClient.Failure(description: "cannot bind a loopback port") }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { Glibc.close(descriptor) }
}
