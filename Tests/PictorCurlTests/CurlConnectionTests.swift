import Foundation
@testable import PictorCurl
import PictorCore
import PictorTestSupport
import Testing

/// Connection reuse and the per-host connection cap, counted by the server (one client port per
/// TCP connection).
@Suite(.enabled(if: CurlFixtures.hasServer), .timeLimit(.minutes(5)))
struct CurlConnectionTests {
    let server = CurlFixtures.server!

    @Test func sequentialRequestsReuseOneConnection() async throws {
        let transport = CurlFixtures.transport()
        let key = CurlFixtures.key()
        for index in 0..<20 {
            let result = try await transport.send(CurlFixtures.request(server.url("/image?k=\(key)&i=\(index)")))
            #expect(result.response.statusCode == 200)
        }
        let counted = try server.connections(prefix: "/image?k=\(key)")
        #expect(counted.requests == 20)
        #expect(counted.connections <= 2)
    }

    @Test(arguments: [6, 2])
    func concurrentRequestsAllSucceedWithinTheConnectionCap(cap: Int) async throws {
        let transport = CurlFixtures.transport { $0.maximumConnectionsPerHost = cap }
        let key = CurlFixtures.key()
        let server = self.server
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<32 {
                group.addTask {
                    let result = try await transport.send(CurlFixtures.request(server.url("/delay?ms=50&k=\(key)&i=\(index)")))
                    #expect(ImageFormat.sniff(result.body) == .png)
                    return result.response.statusCode
                }
            }
            var statuses: [Int] = []
            for try await status in group { statuses.append(status) }
            return statuses
        }
        #expect(statuses == Array(repeating: 200, count: 32))
        let counted = try server.connections(prefix: "/delay?ms=50&k=\(key)")
        #expect(counted.requests == 32)
        #expect(counted.connections <= cap)
        #expect(await CurlFixtures.isDrained(transport))
    }

    /// With one connection, the fourth of four 0.6 s requests waits about 1.8 s for it: the
    /// wait counts against the overall timeout, not against the 1 s connect timeout.
    @Test func waitingForAFreeConnectionIsNotConnecting() async throws {
        let transport = CurlFixtures.transport { $0.maximumConnectionsPerHost = 1 }
        let key = CurlFixtures.key()
        let server = self.server
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<4 {
                group.addTask {
                    var request = CurlFixtures.request(server.url("/delay?ms=600&k=\(key)&i=\(index)"))
                    request.connectTimeout = 1
                    return try await transport.send(request).response.statusCode
                }
            }
            var statuses: [Int] = []
            for try await status in group { statuses.append(status) }
            return statuses
        }
        #expect(statuses == [200, 200, 200, 200])
        #expect(try server.connections(prefix: "/delay?ms=600&k=\(key)").connections == 1)
    }
}
