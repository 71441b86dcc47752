import Foundation
import PictorService
import PictorTestSupport
import Testing
@testable import PictorServer

/// `stop(drainTimeout:)`: a request in flight is held at the origin (the fault server's `/hold`)
/// until the test releases it, so every step happens in a known order.
@Suite(.serialized, .enabled(if: serverTestsCanRun && FaultServer.isAvailable, "needs nginx, python3 and ../shared/corpus"))
struct DrainTests {
    /// `/{signature}/rs:fit:16:16/{base64url(source)}`: the source's query survives (a plain
    /// source's `?` would start the request's own query).
    static func target(_ h: ServerHarness, source: URL) -> String {
        let encoded = Data(source.absoluteString.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let rest = "/rs:fit:16:16/\(encoded)"
        return "/\(h.policy.signature(for: rest)!)\(rest)"
    }

    /// Waits until the origin has received `count` requests starting with `prefix`.
    static func waitForOrigin(_ fault: FaultServer, prefix: String, count: Int = 1) async throws {
        try await offPool {
            while try fault.requestCount(prefix: prefix) < count { usleep(5_000) }
        }
    }

    @Test func inFlightRequestsFinishAndNewOnesGet503() async throws {
        let fault = try await offPool { try FaultServer() }
        defer { fault.stop() }
        // An idle connection is held across the work: not closed by the idle or header timeout
        // however slow the machine.
        let h = try await ServerHarness { $0.idleTimeout = 600; $0.headerTimeout = 600 }
        let port = h.port
        let target = Self.target(h, source: fault.url("/hold?key=drain-finish"))
        let idle = try await offPool { () -> TestHTTPClient in
            let client = try TestHTTPClient(port: port)
            _ = try client.request("/health")
            return client
        }
        let inFlight = Task { try await offPool { try TestHTTPClient.get(port: port, target) } }
        try await Self.waitForOrigin(fault, prefix: "/hold?key=drain-finish")

        let stopping = Task { await h.server.stop(drainTimeout: 120) }
        // The drain has begun once a new connection is refused (the listening socket is closed).
        try await offPool { while TestHTTPClient.accepts(port: port) { usleep(5_000) } }
        let refused = try await offPool { try idle.request(target) }
        #expect(refused.status == 503)
        #expect(refused.header("Connection")?.lowercased() == "close")
        #expect(try await offPool { try idle.isClosedByServer() })

        try await offPool { try fault.release(key: "drain-finish") }
        let answered = try await inFlight.value
        await stopping.value
        #expect(answered.status == 200, "the request in flight finished")
        #expect(answered.header("Content-Type") == "image/png")
        let page = h.server.metricsPage
        #expect(page.contains("pictor_server_draining_refusals_total 1\n"), "\(page)")
        #expect(page.contains("pictor_server_in_flight_requests 0\n"))
        #expect(h.log.all.count == 3, "\(h.log.all)")
    }

    @Test func aRequestStillInFlightAtTheTimeoutGets503() async throws {
        let fault = try await offPool { try FaultServer() }
        defer { fault.stop() }
        let h = try await ServerHarness()
        let port = h.port
        let target = Self.target(h, source: fault.url("/hold?key=drain-timeout"))
        let inFlight = Task { try await offPool { try TestHTTPClient.get(port: port, target) } }
        try await Self.waitForOrigin(fault, prefix: "/hold?key=drain-timeout")
        await h.server.stop(drainTimeout: 0)
        let answered = try await inFlight.value
        try await offPool { try fault.release(key: "drain-timeout") }
        #expect(answered.status == 503)
        #expect(String(decoding: answered.body, as: UTF8.self) == "the server is shutting down\n")
    }

    /// The service's bound on work in flight, through the server: a request for another
    /// result while one is being made gets 429 with `Retry-After`.
    @Test func overloadIs429() async throws {
        let fault = try await offPool { try FaultServer() }
        defer { fault.stop() }
        let h = try await ServerHarness(service: { $0.maxWorkInFlight = 1 })
        let port = h.port
        let held = Self.target(h, source: fault.url("/hold?key=overload"))
        let other = Self.target(h, source: fault.url("/image?key=overload-other"))
        let inFlight = Task { try await offPool { try TestHTTPClient.get(port: port, held) } }
        try await Self.waitForOrigin(fault, prefix: "/hold?key=overload")
        let refused = try await offPool { try TestHTTPClient.get(port: port, other) }
        try await offPool { try fault.release(key: "overload") }
        let answered = try await inFlight.value
        await h.stop()
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "1")
        #expect(answered.status == 200)
    }

    @Test func healthSays503WhileDraining() async throws {
        let fault = try await offPool { try FaultServer() }
        defer { fault.stop() }
        // An idle connection is held across the work: not closed by the idle or header timeout
        // however slow the machine.
        let h = try await ServerHarness { $0.idleTimeout = 600; $0.headerTimeout = 600 }
        let port = h.port
        let target = Self.target(h, source: fault.url("/hold?key=drain-health"))
        let idle = try await offPool { try TestHTTPClient(port: port) }
        let inFlight = Task { try await offPool { try TestHTTPClient.get(port: port, target) } }
        try await Self.waitForOrigin(fault, prefix: "/hold?key=drain-health")
        let stopping = Task { await h.server.stop(drainTimeout: 120) }
        try await offPool { while TestHTTPClient.accepts(port: port) { usleep(5_000) } }
        let health = try await offPool { try idle.request("/health") }
        try await offPool { try fault.release(key: "drain-health") }
        _ = try await inFlight.value
        await stopping.value
        #expect(health.status == 503)
        #expect(String(decoding: health.body, as: UTF8.self) == "draining\n")
    }
}
