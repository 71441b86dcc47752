import Foundation
import PictorService
import PictorTestSupport
import Testing
@testable import PictorServer

/// What the server answers itself: oversized headers, bodies, Unix sockets.
@Suite(.serialized, .enabled(if: serverTestsCanRun, "needs nginx and ../shared/corpus"))
struct ServerLimitTests {
    @Test func oversizedHeadersGet431() async throws {
        let h = try await ServerHarness()
        let (big, after) = try await offPool { [port = h.port] in
            let big = try TestHTTPClient.get(port: port, "/health", headers: [("X-Filler", String(repeating: "a", count: 40_000))])
            return (big, try TestHTTPClient.get(port: port, "/health"))
        }
        await h.stop()
        #expect(big.status == 431)
        #expect(after.status == 200, "the server goes on serving")
    }

    @Test func aLongRequestLineIsRefused() async throws {
        let h = try await ServerHarness()
        let response = try await offPool { [port = h.port] in
            try TestHTTPClient.get(port: port, "/x/" + String(repeating: "a", count: 40_000))
        }
        await h.stop()
        #expect(response.status == 414)
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
