import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCurl
import PictorCore
import PictorTestSupport
import Testing

/// Broken transfers: cut-short bodies, resets, refused connections.
@Suite(.enabled(if: CurlFixtures.hasServer), .timeLimit(.minutes(5)))
struct CurlFailureTests {
    let server = CurlFixtures.server!

    /// Send `request` and return the DataLoadingError it fails with.
    func failure(_ transport: CurlTransport, _ request: TransportRequest) async -> DataLoadingError? {
        do {
            _ = try await transport.send(request)
            Issue.record("\(request.urlRequest.url!) succeeded")
            return nil
        } catch {
            return error as? DataLoadingError
        }
    }

    @Test(arguments: [
        ("http09", URLError.badServerResponse),
        ("midhead", URLError.networkConnectionLost),
        ("dupcl", URLError.badServerResponse),
        ("badgzip", URLError.cannotDecodeContentData),
        // A protocol switch nobody asked for: not a lost connection to retry.
        ("switch101", URLError.badServerResponse),
    ])
    func answersThatAreNotValidHTTPAreTransportErrorsOfTheirKind(kind: String, code: URLError.Code) async throws {
        // Before: http09 said "unsupported URL scheme", midhead "empty response body" (a 200
        // made up from nothing), dupcl took one of the two lengths.
        let transport = CurlFixtures.transport()
        let error = await failure(transport, CurlFixtures.request(server.url("/raw?kind=\(kind)&k=\(CurlFixtures.key())")))
        #expect(error?.transportCode == code.rawValue, "\(String(describing: error))")
    }

    /// An oversized head is a bad server response that says so, and is not retried:
    /// - one header line over 100 kB (`hugeheader`), which libcurl 7.88 refuses as "out of
    ///   memory" with no message of its own;
    /// - many ordinary lines, half a megabyte in all (`manyheaders`), refused by Pictor's own cap
    ///   on the head (libcurl's limit, 300 kB, was a receive error, retried as a lost connection).
    @Test(arguments: [("hugeheader", CurlErrorMapping.oversizedHeaderMessage), ("manyheaders", CurlTransfer.oversizedHeadMessage)])
    func anOversizedHeadIsABadServerResponse(kind: String, expected: String) async throws {
        let transport = CurlFixtures.transport()
        let error = try #require(await failure(transport, CurlFixtures.request(server.url("/raw?kind=\(kind)&k=\(CurlFixtures.key())"))))
        #expect(error.transportCode == URLError.badServerResponse.rawValue, "\(error)")
        #expect(!error.isTransient)
        let message = try #require(error.transportMessage, "\(error)")
        #expect(message == expected, "\(message)")
        #expect(await CurlFixtures.isDrained(transport))
    }

    @Test func aBodyCutShortOfItsContentLengthIsTruncated() async throws {
        let transport = CurlFixtures.transport()
        let error = await failure(transport, CurlFixtures.request(server.url("/truncated?pad=1000&send=50&k=\(CurlFixtures.key())")))
        #expect(error == .truncated(received: 50, expected: 1098))
        #expect(await CurlFixtures.isDrained(transport))
    }

    @Test func aResetAfterPartOfTheBodyIsTruncated() async throws {
        let transport = CurlFixtures.transport()
        let error = await failure(transport, CurlFixtures.request(server.url("/reset-after-headers?k=\(CurlFixtures.key())")))
        #expect(error == .truncated(received: 98, expected: 100_098))
    }

    @Test func aResetWithoutAResponseIsATransportError() async throws {
        let transport = CurlFixtures.transport()
        let error = try #require(await failure(transport, CurlFixtures.request(server.url("/reset?k=\(CurlFixtures.key())"))))
        #expect(error.transportCode == URLError.networkConnectionLost.rawValue, "\(error)")
        #expect(error.transportMessage?.isEmpty == false, "\(error)")
    }

    @Test func aRefusedConnectionIsCannotConnectToHost() async throws {
        let transport = CurlFixtures.transport()
        let port = try CurlFixtures.closedPort()
        let error = try #require(await failure(transport, CurlFixtures.request(URL(string: "http://127.0.0.1:\(port)/image")!)))
        #expect(error.transportCode == URLError.cannotConnectToHost.rawValue, "\(error)")
        let message = try #require(error.transportMessage, "\(error)")
        #expect(message.contains("\(port)"), "libcurl's own text: \(message)")
        #expect(await CurlFixtures.isDrained(transport))
    }

    @Test func aShutDownTransportFailsWhatIsRunningAndWhatComesLater() async throws {
        let transport = CurlFixtures.transport()
        let key = CurlFixtures.key()
        let server = self.server
        let running = Task { try await transport.send(CurlFixtures.request(server.url("/hold?key=\(key)"))) }
        #expect(try await CurlFixtures.waitUntil { try server.requestCount(prefix: "/hold?key=\(key)") == 1 })
        transport.shutdown()
        let expected = DataLoadingError.transport(code: URLError.cancelled.rawValue, message: "the transport was shut down")
        await #expect(throws: expected) { _ = try await running.value }
        await #expect(throws: expected) {
            _ = try await transport.send(CurlFixtures.request(server.url("/image?k=\(key)")))
        }
        try server.release(key: key)
    }

    /// Dropping the transport ends its event thread and frees the event loop (which cleans up
    /// the multi handle on its way out), idle keep-alive connections included.
    @Test func aDeinitialisedTransportEndsItsThread() async throws {
        weak var weakLoop: CurlEventLoop?
        var threadID: pid_t?
        do {
            let transport = CurlFixtures.transport()
            _ = try await transport.send(CurlFixtures.request(server.url("/image?k=\(CurlFixtures.key())")))
            weakLoop = transport.loop
            threadID = transport.loop?.eventThreadID
        }
        let id = try #require(threadID)
        #expect(await CurlFixtures.waitUntil { weakLoop == nil })
        #expect(await CurlFixtures.waitUntil { !FileManager.default.fileExists(atPath: "/proc/self/task/\(id)") })
    }
}
