import Foundation
import PictorService
import PictorTestSupport
import Synchronization
import Testing
@testable import PictorServer

/// What the server answers itself: oversized headers, bodies, Unix sockets.
@Suite(.serialized, .enabled(if: serverTestsCanRun, "needs nginx and ../shared/corpus"))
struct ServerLimitTests {
    @Test func oversizedHeadersGet431() async throws {
        let h = try await ServerHarness(accessLog: .json)
        let (big, after, metrics) = try await offPool { [port = h.port] in
            let big = try TestHTTPClient.get(port: port, "/health", headers: [("X-Filler", String(repeating: "a", count: 40_000))])
            return (big, try TestHTTPClient.get(port: port, "/health"), try TestHTTPClient.get(port: port, "/metrics"))
        }
        await h.stop()
        #expect(big.status == 431)
        #expect(big.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(String(decoding: big.body, as: UTF8.self) == "the request header is larger than 32768 bytes\n")
        #expect(after.status == 200, "the server goes on serving")
        // Any line, not the first: the refused connection's line is written when libmicrohttpd
        // reports it closed, which can come after the next connection's requests are answered.
        #expect(h.log.all.filter { $0.contains(#""method":"GET","path":"/health","status":431,"#) }.count == 1, "\(h.log.all)")
        #expect(String(decoding: metrics.body, as: UTF8.self).contains("pictor_server_refusals_total{status=\"431\"} 1\n"))
    }

    @Test func aLongRequestLineIsRefused() async throws {
        let h = try await ServerHarness()
        let target = "/x/" + String(repeating: "a", count: 40_000)
        let response = try await offPool { [port = h.port] in try TestHTTPClient.get(port: port, target) }
        await h.stop()
        #expect(response.status == 414)
        #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(String(decoding: response.body, as: UTF8.self) == "the request line is longer than 32768 bytes\n")
        #expect(h.log.all.first?.contains("\"GET /x/aaaa") == true)
        #expect(h.log.all.first?.contains("\" 414 ") == true, "\(h.log.all.first?.suffix(80) ?? "")")
    }

    /// A head over libmicrohttpd's memory pool (twice the limit) is refused by libmicrohttpd
    /// itself; its status is still logged.
    @Test func aHeadOverTheMemoryPoolIsLoggedWithItsStatus() async throws {
        let h = try await ServerHarness(accessLog: .json)
        let big = try await offPool { [port = h.port] in
            try TestHTTPClient.get(port: port, "/health", headers: [("X-Filler", String(repeating: "a", count: 100_000))])
        }
        await h.stop()
        #expect(big.status == 431)
        let line = try #require(h.log.all.first { $0.contains(#""status":"#) }, "\(h.log.all)")
        #expect(line.contains(#""path":"/health","status":431,"#), "\(line)")
    }

    /// Slowloris: clients that trickle their header a byte at a time. Those over the per-IP
    /// limit are closed at once, the others when the header timeout passes; a fresh request is
    /// then served.
    @Test func slowClientsAreCutOffAndAFreshRequestIsServed() async throws {
        let h = try await ServerHarness(accessLog: .json) {
            $0.maxConnectionsPerIP = 4
            $0.headerTimeout = 1
        }
        let slow = 8
        let port = h.port
        // Every connection is opened before any trickles, in one loop: opened from tasks, a
        // connection that started late on a busy task pool (other suites run beside this one)
        // came after the first ones were cut off at 1 s, was under the limit, and made a fifth
        // 408.
        let closed = try await offPool {
            let clients = try (0..<slow).map { _ in try TestHTTPClient(port: port) }
            let head = Data(("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + String(repeating: "a", count: 1000)).utf8)
            let results = Mutex([Bool](repeating: false, count: slow))
            let done = DispatchGroup()
            for (index, client) in clients.enumerated() {
                done.enter()
                Thread {
                    let wasClosed = client.trickleUntilClosed(head)
                    results.withLock { $0[index] = wasClosed }
                    done.leave()
                }.start()
            }
            done.wait()
            return results.withLock { $0.filter { $0 }.count }
        }
        let fresh = try await offPool { try Self.getRetryingRefusedConnections(port: port, "/health") }
        // A cut-off connection is counted (then logged) when libmicrohttpd reports it closed,
        // which can come after the client saw it close and after the requests above: wait for
        // the fourth line before reading the counter. A fifth still fails the counts below.
        let log = h.log
        try await HangUpTests.waitUntil { log.all.filter { $0.contains(#""method":"-","path":"-","status":408,"#) }.count >= 4 }
        let metrics = try await offPool { try Self.getRetryingRefusedConnections(port: port, "/metrics") }
        await h.stop()
        #expect(closed == slow, "every slow connection is closed by the server")
        #expect(fresh.status == 200)
        let page = String(decoding: metrics.body, as: UTF8.self)
        #expect(page.contains("pictor_server_refusals_total{status=\"408\"} 4\n"), "\(page)")
        let timeouts = h.log.all.filter { $0.contains(#""method":"-","path":"-","status":408,"#) }
        #expect(timeouts.count == 4, "\(h.log.all)")
    }

    /// HTTP/1.1 requires `Host` (RFC 9112 §3.2): without it a request is a 400, as nginx
    /// answers it, not served. A space in the target makes no request line at all: the
    /// connection is closed (or answered 400), never served.
    @Test func aRequestWithoutHostIs400AndASpaceInItsTargetIsNotServed() async throws {
        let h = try await ServerHarness()
        let (noHost, space) = try await offPool { [port = h.port] () -> (TestHTTPClient.Response, TestHTTPClient.Response?) in
            let first = try TestHTTPClient(port: port)
            try first.send(Data("GET /health HTTP/1.1\r\n\r\n".utf8))
            let second = try TestHTTPClient(port: port)
            try second.send(Data("GET /hea lth HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            return (try first.readResponse(), try? second.readResponse())
        }
        await h.stop()
        #expect(noHost.status == 400)
        #expect(space == nil || space?.status == 400)
    }

    /// The head arrives whole but a body trickles in a byte at a time: the deadline covers the
    /// body too (a request must be complete within the header timeout), so the connection is
    /// cut and logged 408 with its method and path. Without it, the idle timeout restarting at
    /// each byte would let one request hold its connection for as long as the body lasts.
    @Test func aBodyThatTricklesIsCutOffByTheDeadline() async throws {
        let h = try await ServerHarness(accessLog: .json) { $0.headerTimeout = 1 }
        let port = h.port
        let closed = try await offPool {
            let client = try TestHTTPClient(port: port)
            try client.send(Data("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n".utf8))
            return client.trickleUntilClosed(Data(repeating: UInt8(ascii: "a"), count: 1000))
        }
        await h.stop()
        #expect(closed, "the server closed the connection")
        let cut = h.log.all.filter { $0.contains(#""method":"GET","path":"/health","status":408,"#) }
        #expect(cut.count == 1, "\(h.log.all)")
    }

    /// One client address holds at most `maxConnectionsPerIP` connections: one more is closed
    /// at once, without an answer.
    @Test func aConnectionOverThePerIPLimitIsClosed() async throws {
        let h = try await ServerHarness { $0.maxConnectionsPerIP = 2 }
        let (overClosed, served) = try await offPool { [port = h.port] () -> (Bool, Int) in
            var held: [TestHTTPClient] = [try TestHTTPClient(port: port), try TestHTTPClient(port: port)]
            _ = try held[0].request("/health")
            _ = try held[1].request("/health")
            let over = try TestHTTPClient(port: port)
            let overClosed = try over.isClosedByServer()
            held.removeAll()
            return (overClosed, try Self.getRetryingRefusedConnections(port: port, "/health").status)
        }
        await h.stop()
        #expect(overClosed)
        #expect(served == 200)
    }

    /// A request on a new connection, again while the server closes new connections unanswered
    /// (a closed connection leaves the per-IP count just after the client sees it end): no
    /// timing is asserted, only that a request is served within the tries.
    static func getRetryingRefusedConnections(port: Int, _ target: String) throws -> TestHTTPClient.Response {
        var lastError: Error?
        for _ in 0..<200 {
            do {
                return try TestHTTPClient.get(port: port, target)
            } catch {
                lastError = error
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        throw lastError!
    }

    @Test func aBodyIsReadAndRefused() async throws {
        let h = try await ServerHarness()
        let response = try await offPool { [port = h.port] in
            let client = try TestHTTPClient(port: port)
            try client.send(Data("POST /x/y/plain/http://127.0.0.1/a.jpg HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello".utf8))
            return try client.readResponse()
        }
        await h.stop()
        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET, HEAD")
    }

    @Test func aClientThatStopsInItsHeaderIsCutOff() async throws {
        let h = try await ServerHarness { $0.idleTimeout = 1 }
        let closed = try await offPool { [port = h.port] in
            let client = try TestHTTPClient(port: port)
            try client.send(Data("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8))
            // Blocks until the server gives up on the header and closes the connection.
            return try client.isClosedByServer()
        }
        await h.stop()
        #expect(closed)
    }

    /// libmicrohttpd accepts no connection over the limit: it waits in the kernel's queue and
    /// is served once another closes.
    @Test func aConnectionOverTheLimitWaitsForAnotherToClose() async throws {
        let h = try await ServerHarness {
            $0.maxConnections = 2
            $0.workers = 1  // libmicrohttpd divides the limit among its threads
        }
        let (first, second, third) = try await offPool { [port = h.port] () -> (Int, Int, Int) in
            var a: TestHTTPClient? = try TestHTTPClient(port: port)
            let b = try TestHTTPClient(port: port)
            let first = try a!.request("/health").status, second = try b.request("/health").status
            let c = try TestHTTPClient(port: port)
            try c.send(Data("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            a = nil  // closes the first connection: a slot frees
            return (first, second, try c.readResponse().status)
        }
        await h.stop()
        #expect(first == 200 && second == 200)
        #expect(third == 200)
    }

    @Test func listensOnAUnixSocket() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-\(UUID().uuidString.prefix(8)).sock").path
        let h = try await ServerHarness { $0.listen = .unix(path: path) }
        let (health, image) = try await offPool { [target = h.signed("rs:fit:32:32")] in
            let client = try TestHTTPClient(unixPath: path)
            return (try client.request("/health"), try client.request(target))
        }
        await h.stop()
        #expect(health.status == 200)
        #expect(image.status == 200)
        #expect(jpegSize(image.body)?.width == 32)
        #expect(!FileManager.default.fileExists(atPath: path), "the socket file is removed on stop")
        #expect(h.log.all.first?.contains(" unix \"GET /health\" 200 ") == true, "\(h.log.all)")
    }

    @Test func aServerReleasedWithoutStopClosesItsSocket() async throws {
        var h: ServerHarness? = try await ServerHarness()
        let port = h!.port
        let health = try await offPool { try TestHTTPClient.get(port: port, "/health").status }
        h = nil
        #expect(health == 200)
        #expect(!TestHTTPClient.accepts(port: port))
    }

    @Test func anAddressInUseIsAnError() async throws {
        let h = try await ServerHarness()
        var configuration = ImageServer.Configuration()
        configuration.listen = .tcp(host: "127.0.0.1", port: h.port)
        #expect(throws: ServerError(.cannotListen, "cannot listen on 127.0.0.1:\(h.port): Address already in use")) {
            _ = try ImageServer(configuration: configuration, service: h.server.service)
        }
        await h.stop()
    }

    @Test func aValueOutOfRangeIsAnError() async throws {
        let h = try await ServerHarness()
        var configuration = ImageServer.Configuration()
        configuration.listen = .tcp(host: "127.0.0.1", port: 0)
        configuration.workers = 0
        #expect(throws: ServerError(.invalidConfiguration, "workers is 0, outside 1...256")) {
            _ = try ImageServer(configuration: configuration, service: h.server.service)
        }
        await h.stop()
    }
}
