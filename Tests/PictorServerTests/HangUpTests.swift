import Foundation
import PictorService
import PictorTestSupport
import Testing
@testable import PictorServer

/// A client that hangs up while its image is being made: the request's work is cancelled and
/// it is logged 499 with no bytes, without waiting for the request timeout (600 s in the
/// harness, so a server that did not notice would make these tests hang, not pass). The source
/// is the fault server's `/no-headers` (silent until its client hangs up) or `/hold`.
@Suite(.serialized, .enabled(if: serverTestsCanRun && FaultServer.isAvailable, "needs nginx, python3 and ../shared/corpus"))
struct HangUpTests {
    /// Sends `GET target` on a connection of its own, waits until the origin has received the
    /// request for `prefix` (so the request is suspended, its source being loaded), and closes
    /// the connection.
    static func requestAndHangUp(port: Int, _ target: String, fault: FaultServer, prefix: String, count: Int = 1) async throws {
        try await offPool {
            let client = try TestHTTPClient(port: port)
            try client.send(Data("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            while try fault.requestCount(prefix: prefix) < count { usleep(5_000) }
            withExtendedLifetime(client) {}
        }
    }

    struct NeverHappened: Error {}

    /// Waits until `condition` holds (a poll every 5 ms, off the cooperative pool); throws after
    /// `hangGuard` seconds, so that a server that never gets there fails the test instead of
    /// hanging it.
    static func waitUntil(hangGuard: Double = 120, _ condition: @escaping @Sendable () -> Bool) async throws {
        try await offPool {
            let start = Date()
            while !condition() {
                guard Date().timeIntervalSince(start) < hangGuard else { throw NeverHappened() }
                usleep(5_000)
            }
        }
    }

    static func abortedLines(_ h: ServerHarness) -> [String] {
        h.log.all.filter { $0.contains("\" 499 0 ") }
    }

    @Test func aClientThatHangsUpHasItsWorkCancelledAndIsLogged499() async throws {
        let fault = try await offPool { try FaultServer() }
        defer { fault.stop() }
        let h = try await ServerHarness()
        let port = h.port
        let target = DrainTests.target(h, source: fault.url("/no-headers?key=abort-cancel"))
        try await Self.requestAndHangUp(port: port, target, fault: fault, prefix: "/no-headers?key=abort-cancel")

        // The pipeline closes its connection to the source: the work was cancelled.
        let source = try await offPool { try fault.bytesWritten(key: "abort-cancel") }
        #expect(source.finished && source.hungUp, "the source connection was closed by the pipeline")
        let server = h.server
        try await Self.waitUntil { server.core.serverCounters.inFlight == 0 && !Self.abortedLines(h).isEmpty }
        let page = server.metricsPage
        #expect(page.contains("pictor_server_client_aborts_total 1\n"), "\(page)")
        #expect(page.contains("pictor_server_in_flight_requests 0\n"))
        #expect(Self.abortedLines(h).count == 1, "\(h.log.all)")
        #expect(h.log.all.count == 1, "\(h.log.all)")
        await h.stop()
    }

    /// The connection of a client that hung up is closed when the hang-up is noticed, not at
    /// the idle timeout: with a timeout of 600 s, a server that waited for it would make this
    /// test fail at the hang guard. Nothing is logged but the 499 line (no error of
    /// libmicrohttpd's).
    @Test func theConnectionOfAClientThatHungUpIsClosedWithoutWaitingForTheIdleTimeout() async throws {
        let fault = try await offPool { try FaultServer() }
        defer { fault.stop() }
        let h = try await ServerHarness { $0.idleTimeout = 600 }
        let target = DrainTests.target(h, source: fault.url("/no-headers?key=abort-close"))
        try await Self.requestAndHangUp(port: h.port, target, fault: fault, prefix: "/no-headers?key=abort-close")
        try await Self.waitUntil(hangGuard: 60) { !Self.abortedLines(h).isEmpty }
        #expect(h.log.all.count == 1, "\(h.log.all)")
        await h.stop()
    }

    /// `pictor_requests_total` counts every image request the access log records, by the
    /// status it logs: the service's answers, the server's 408 and 414, and 499 for the client
    /// that hung up (a dashboard must see a slowloris and the clients that leave).
    @Test func theRequestCountsAddUpToTheAccessLog() async throws {
        let fault = try await offPool { try FaultServer() }
        defer { fault.stop() }
        let h = try await ServerHarness(accessLog: .json) { $0.headerTimeout = 1 }
        let port = h.port
        let good = h.signed("rs:fit:16:16")
        let target = DrainTests.target(h, source: fault.url("/no-headers?key=abort-count"))
        try await Self.requestAndHangUp(port: port, target, fault: fault, prefix: "/no-headers?key=abort-count")
        try await Self.waitUntil { h.log.all.contains { $0.contains(#""status":499,"#) } }
        try await offPool {
            _ = try TestHTTPClient.get(port: port, good)
            _ = try TestHTTPClient.get(port: port, "/x" + String(good.dropFirst(2)))  // a wrong signature: 403
            _ = try TestHTTPClient.get(port: port, "/" + String(repeating: "a", count: 40_000))  // 414
            let slow = try TestHTTPClient(port: port)
            _ = slow.trickleUntilClosed(Data("GET /health HTTP/1.1\r\n".utf8))  // 408
        }
        // A 408 is counted and logged when libmicrohttpd reports the connection closed, which
        // may come after the client saw it close; every other status is counted before its
        // answer is sent.
        try await Self.waitUntil { h.log.all.contains { $0.contains(#""status":408,"#) } }
        let page = try await offPool { String(decoding: try TestHTTPClient.get(port: port, "/metrics").body, as: UTF8.self) }
        await h.stop()
        var logged: [Int: Int] = [:]
        for line in h.log.all where !line.contains(#""path":"/metrics""#) {
            guard let range = line.range(of: #""status":"#) else { continue }
            if let status = Int(line[range.upperBound...].prefix(3)) { logged[status, default: 0] += 1 }
        }
        #expect(logged == [200: 1, 403: 1, 408: 1, 414: 1, 499: 1], "\(h.log.all)")
        // The 408 line says how long the connection tried: at least the header timeout.
        let cut = try #require(h.log.all.first { $0.contains(#""status":408,"#) })
        let ms = cut.range(of: #""ms":"#).flatMap { Double(cut[$0.upperBound...].prefix { $0 != "}" }) }
        #expect((ms ?? 0) >= 1000, "\(cut)")
        for (status, count) in logged {
            #expect(page.contains("pictor_requests_total{status=\"\(status)\"} \(count)\n"), "\(status): \(page)")
        }
    }

    /// Two requests share one job; the one that hangs up leaves it, and the other still gets
    /// its image from the one download when the source answers.
    @Test func sharedWorkGoesOnForTheClientStillWaiting() async throws {
        let fault = try await offPool { try FaultServer() }
        defer { fault.stop() }
        let h = try await ServerHarness()
        let port = h.port
        let server = h.server
        let target = DrainTests.target(h, source: fault.url("/hold?key=abort-shared"))
        let waiting = Task { try await offPool { try TestHTTPClient.get(port: port, target) } }
        try await DrainTests.waitForOrigin(fault, prefix: "/hold?key=abort-shared")
        let leaving = try await offPool { try TestHTTPClient(port: port) }
        try await offPool { try leaving.send(Data("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)) }
        try await Self.waitUntil { server.core.serverCounters.inFlight == 2 }
        leaving.hangUp()
        try await Self.waitUntil { server.core.serverCounters.inFlight == 1 && !Self.abortedLines(h).isEmpty }

        try await offPool { try fault.release(key: "abort-shared") }
        let answered = try await waiting.value
        #expect(answered.status == 200)
        #expect(answered.header("Content-Type") == "image/png")
        #expect(try await offPool { try fault.requestCount(prefix: "/hold?key=abort-shared") } == 1, "one download")
        #expect(server.metricsPage.contains("pictor_server_client_aborts_total 1\n"))
        await h.stop()
        #expect(Self.abortedLines(h).count == 1, "\(h.log.all)")
        #expect(h.log.all.count == 2, "\(h.log.all)")
    }

    /// A request pipelined behind one that is suspended leaves bytes waiting on the socket:
    /// not a hang-up. Both are answered, in order, once the source answers.
    @Test func aPipelinedRequestIsNotAHangUp() async throws {
        let fault = try await offPool { try FaultServer() }
        defer { fault.stop() }
        let h = try await ServerHarness()
        let port = h.port
        let server = h.server
        let target = DrainTests.target(h, source: fault.url("/hold?key=abort-pipelined"))
        let client = try await offPool { try TestHTTPClient(port: port) }
        try await offPool { try client.send(Data("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)) }
        try await DrainTests.waitForOrigin(fault, prefix: "/hold?key=abort-pipelined")
        // The first request is suspended: the second stays in the socket's buffer, where the
        // watch sees it, until the first is answered.
        try await offPool { try client.send(Data("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)) }
        let looks = server.core.hangUpWatch.lookCount
        try await Self.waitUntil { server.core.hangUpWatch.lookCount >= looks + 3 }

        try await offPool { try fault.release(key: "abort-pipelined") }
        let first = try await offPool { try client.readResponse() }
        let second = try await offPool { try client.readResponse() }
        #expect(first.status == 200)
        #expect(first.header("Content-Type") == "image/png")
        #expect(second.status == 200)
        #expect(server.metricsPage.contains("pictor_server_client_aborts_total 0\n"))
        await h.stop()
        #expect(Self.abortedLines(h).isEmpty, "\(h.log.all)")
    }
}
