import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCurl
import PictorCore
import PictorTestSupport
import Testing

/// Content decoding: what libcurl was built with is asked for and decoded, and an encoded
/// Content-Length is never mistaken for the decoded body's length.
@Suite(.enabled(if: CurlFixtures.hasServer), .timeLimit(.minutes(5)))
struct CurlEncodingTests {
    let server = CurlFixtures.server!

    /// The identity body of `type`, fetched the same way.
    func plain(_ type: String, _ transport: CurlTransport) async throws -> Data {
        try await transport.send(CurlFixtures.request(server.url("/encoded?enc=identity&type=\(type)&k=\(CurlFixtures.key())"))).body
    }

    @Test(arguments: ["gzip", "deflate"], ["png", "svg"])
    func anEncodedBodyIsDecoded(encoding: String, type: String) async throws {
        try await checkDecoding(encoding: encoding, type: type)
    }

    @Test(.enabled(if: CurlFixtures.serverSupportsBrotli, "Python's brotli module (python3-brotli) is missing"),
          arguments: ["png", "svg"])
    func aBrotliBodyIsDecoded(type: String) async throws {
        try await checkDecoding(encoding: "br", type: type)
    }

    func checkDecoding(encoding: String, type: String) async throws {
        let transport = CurlFixtures.transport()
        let expected = try await plain(type, transport)
        let path = "/encoded?enc=\(encoding)&type=\(type)&k=\(CurlFixtures.key())"
        let progress = ProgressLog()
        let result = try await transport.send(CurlFixtures.request(server.url(path), progress: progress))
        #expect(result.response.statusCode == 200)
        #expect(result.response.value(forHTTPHeaderField: "Content-Encoding") == encoding)
        #expect(result.body == expected)
        if type == "png" { #expect(ImageFormat.sniff(result.body) == .png) }
        // The encoded length says nothing about the decoded body: the total is unknown.
        #expect(progress.recorded.allSatisfy { $0.total == -1 })
        #expect(progress.recorded.last?.completed == Int64(expected.count))
        let sent = try #require(try server.requests(prefix: path).first?.headers["accept-encoding"])
        #expect(sent.contains(encoding))
    }

    /// A 98-byte PNG grows to 111 bytes gzipped: a decoded body shorter than its
    /// Content-Length is complete, not truncated.
    @Test func aDecodedBodyShorterThanItsEncodedLengthIsNotTruncated() async throws {
        let transport = CurlFixtures.transport()
        let result = try await transport.send(CurlFixtures.request(server.url("/encoded?enc=gzip&type=png&k=\(CurlFixtures.key())")))
        let declared = try #require(result.response.value(forHTTPHeaderField: "Content-Length").flatMap(Int.init))
        #expect(result.body.count == 98)
        #expect(declared > result.body.count)
    }

    @Test func withoutAcceptsEncodingNothingIsAskedFor() async throws {
        let transport = CurlFixtures.transport { $0.acceptsEncoding = false }
        let path = "/image?k=\(CurlFixtures.key())"
        _ = try await transport.send(CurlFixtures.request(server.url(path)))
        #expect(try server.requests(prefix: path).first?.headers["accept-encoding"] == nil)
    }
}
