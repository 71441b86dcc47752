import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCurl
import PictorCore
import PictorTestSupport
import Testing

/// Requests and responses as they go on the wire: statuses, headers, methods, URLs.
@Suite(.enabled(if: CurlFixtures.hasServer), .timeLimit(.minutes(5)))
struct CurlTransportBasicTests {
    let server = CurlFixtures.server!

    @Test func aPNGLoadsWithItsStatusHeadersURLAndProgress() async throws {
        let transport = CurlFixtures.transport()
        let url = server.url("/image?k=\(CurlFixtures.key())")
        let progress = ProgressLog()
        let result = try await transport.send(CurlFixtures.request(url, progress: progress))

        #expect(result.response.statusCode == 200)
        #expect(result.response.url == url)
        #expect(result.response.value(forHTTPHeaderField: "content-type") == "image/png")
        #expect(result.response.value(forHTTPHeaderField: "Content-Length") == "98")
        #expect(result.response.expectedContentLength == 98)
        #expect(result.body.count == 98)
        #expect(ImageFormat.sniff(result.body) == .png)
        #expect(progress.recorded.first == TransferProgress(completed: 0, total: 98))
        #expect(progress.recorded.last == TransferProgress(completed: 98, total: 98))
    }

    @Test func a404IsReturnedWithItsBodyNotThrown() async throws {
        let transport = CurlFixtures.transport()
        let result = try await transport.send(CurlFixtures.request(server.url("/status?code=404&k=\(CurlFixtures.key())")))
        #expect(result.response.statusCode == 404)
        #expect(result.body.count == 98)
        #expect(ImageFormat.sniff(result.body) == .png)
    }

    @Test(arguments: [301, 302, 307])
    func aRedirectIsReturnedWithItsLocationAndNotFollowed(code: Int) async throws {
        let transport = CurlFixtures.transport()
        let target = "/image?k=\(CurlFixtures.key())"
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let result = try await transport.send(CurlFixtures.request(server.url("/redirect?n=1&code=\(code)&final=\(encoded)")))
        #expect(result.response.statusCode == code)
        #expect(result.response.value(forHTTPHeaderField: "Location") == target)
        #expect(try server.requestCount(prefix: target) == 0)
    }

    @Test func headReturnsTheHeadWithoutABody() async throws {
        let transport = CurlFixtures.transport()
        let path = "/image?k=\(CurlFixtures.key())"
        let progress = ProgressLog()
        let result = try await transport.send(CurlFixtures.request(server.url(path), method: "HEAD", progress: progress))
        #expect(result.response.statusCode == 200)
        #expect(result.body.isEmpty)
        #expect(result.response.value(forHTTPHeaderField: "Content-Length") == "98")
        #expect(try server.requests(prefix: path).map(\.method) == ["HEAD"])
        #expect(progress.recorded.allSatisfy { $0.completed == 0 })
    }

    @Test func requestHeadersAndTheDefaultUserAgentAreSent() async throws {
        let transport = CurlFixtures.transport()
        let path = "/image?k=\(CurlFixtures.key())"
        var request = CurlFixtures.request(server.url(path))
        request.urlRequest.setValue("abc def", forHTTPHeaderField: "X-Pictor-Test")
        request.urlRequest.setValue("image/webp,image/*", forHTTPHeaderField: "Accept")
        request.urlRequest.setValue("", forHTTPHeaderField: "X-Empty")
        _ = try await transport.send(request)

        let recorded = try #require(try server.requests(prefix: path).first)
        #expect(recorded.headers["x-pictor-test"] == "abc def")
        #expect(recorded.headers["accept"] == "image/webp,image/*")
        #expect(recorded.headers["x-empty"] == "")
        #expect(recorded.headers["user-agent"] == CurlTransport.defaultUserAgent)
        #expect(CurlTransport.defaultUserAgent == "Pictor/\(PictorVersion.current) (+swift; Linux)")
        #expect(recorded.headers["expect"] == nil)
        #expect(recorded.headers["cookie"] == nil)
    }

    @Test func defaultHeadersFillOnlyWhatTheRequestLacks() async throws {
        let transport = CurlFixtures.transport()
        let path = "/image?k=\(CurlFixtures.key())"
        var request = CurlFixtures.request(server.url(path))
        request.urlRequest.setValue("image/webp", forHTTPHeaderField: "accept")
        request.defaultHeaders = ["Accept": "image/*", "X-Default": "yes"]
        _ = try await transport.send(request)
        let recorded = try #require(try server.requests(prefix: path).first)
        #expect(recorded.headers["accept"] == "image/webp", "the request's own header, whatever its case, wins")
        #expect(recorded.headers["x-default"] == "yes")
    }

    @Test func theRequestsOwnUserAgentWins() async throws {
        let transport = CurlFixtures.transport()
        let path = "/image?k=\(CurlFixtures.key())"
        var request = CurlFixtures.request(server.url(path))
        request.urlRequest.setValue("Custom/1.0", forHTTPHeaderField: "user-agent")
        _ = try await transport.send(request)
        #expect(try server.requests(prefix: path).first?.headers["user-agent"] == "Custom/1.0")
    }

    @Test func aConfiguredUserAgentAndNoneAtAll() async throws {
        let custom = CurlFixtures.transport { $0.userAgent = "Fleet/2" }
        let none = CurlFixtures.transport { $0.userAgent = nil }
        let first = "/image?k=\(CurlFixtures.key())", second = "/image?k=\(CurlFixtures.key())"
        _ = try await custom.send(CurlFixtures.request(server.url(first)))
        _ = try await none.send(CurlFixtures.request(server.url(second)))
        #expect(try server.requests(prefix: first).first?.headers["user-agent"] == "Fleet/2")
        #expect(try server.requests(prefix: second).first?.headers["user-agent"] == nil)
    }

    @Test(arguments: ["POST", "PUT"])
    func aBodyIsSentWithItsMethod(method: String) async throws {
        let transport = CurlFixtures.transport()
        let path = "/echo?k=\(CurlFixtures.key())"
        var request = CurlFixtures.request(server.url(path), method: method)
        let body = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 * 7) })   // NUL bytes included
        request.urlRequest.httpBody = body
        let result = try await transport.send(request)
        #expect(result.response.statusCode == 200)
        #expect(result.body == body)
        let recorded = try #require(try server.requests(prefix: path).first)
        #expect(recorded.method == method)
        #expect(recorded.headers["expect"] == nil)
    }

    @Test func theURLIsSentExactlyAsGiven() async throws {
        let transport = CurlFixtures.transport()
        let key = CurlFixtures.key()
        let target = "/x/../image?k=\(key)&q=a%2Fb%20c"
        let result = try await transport.send(CurlFixtures.request(server.url(target)))
        // The fault server has no route "x/../image": it got the dot segments unresolved.
        #expect(result.response.statusCode == 404)
        #expect(try server.requests(prefix: "/x/../image?k=\(key)").map(\.target) == [target])
    }

    @Test(arguments: ["ftp://127.0.0.1/a.png", "file:///etc/hostname", "data:,hello"])
    func onlyHTTPAndHTTPSAreSent(string: String) async throws {
        let transport = CurlFixtures.transport()
        await #expect(throws: DataLoadingError.unsupportedURL) {
            _ = try await transport.send(CurlFixtures.request(URL(string: string)!))
        }
    }

    @Test func anEmptyBodyIsEmptyData() async throws {
        let transport = CurlFixtures.transport()
        let progress = ProgressLog()
        let result = try await transport.send(CurlFixtures.request(server.url("/empty?k=\(CurlFixtures.key())"), progress: progress))
        #expect(result.response.statusCode == 200)
        #expect(result.body.isEmpty)
        #expect(progress.recorded == [TransferProgress(completed: 0, total: 0)])
    }

    @Test func aLargeBodyArrivesWhole() async throws {
        // 3 MiB + declared length: pre-sized buffer, many reads.
        let transport = CurlFixtures.transport()
        let size = 3 * 1024 * 1024
        let progress = ProgressLog()
        let result = try await transport.send(CurlFixtures.request(server.url("/big?key=\(CurlFixtures.key())&send=\(size)"), progress: progress))
        #expect(result.body.count == size)
        #expect(ImageFormat.sniff(result.body) == .png)
        #expect(result.body.suffix(1000).allSatisfy { $0 == 0 })
        #expect(progress.recorded.last == TransferProgress(completed: Int64(size), total: Int64(size)))
        let completed = progress.recorded.map(\.completed)
        #expect(completed == completed.sorted())
        #expect(await CurlFixtures.isDrained(transport))
    }
}

/// Field names compared as HTTP does: ASCII letters without regard to case, nothing else folded.
@Suite struct HeaderFieldNameTests {
    @Test func namesCompareWithoutRegardToASCIICaseOnly() {
        func same(_ a: String, _ b: String) -> Bool { HTTPResponseHead.sameFieldName(a.utf8, b.utf8) }
        #expect(same("User-Agent", "user-agent"))
        #expect(same("EXPECT", "Expect"))
        #expect(!same("Accept", "Accept-Encoding"))
        #expect(!same("X-@", "X-`"), "only letters fold")
        #expect(!same("Straße", "STRASSE"))
    }
}
