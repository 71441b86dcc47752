import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import Testing

/// The head the loading stage carries instead of `HTTPURLResponse`: lookups as Foundation's,
/// and the Foundation response built from it only when asked for, once.
@Suite struct HTTPResponseHeadTests {
    static let url = URL(string: "https://example.test/a.png")!
    static let head = HTTPResponseHead(url: url, statusCode: 200, httpVersion: "HTTP/2", fields: [
        .init(name: "content-type", value: "image/png"),
        .init(name: "ETag", value: "\"v1\""),
        .init(name: "x-custom", value: "a, b"),
        .init(name: "Content-Length", value: "98"),
    ])

    @Test func lookupsIgnoreCaseAsFoundationsDo() throws {
        let foundation = try #require(Self.head.makeHTTPURLResponse())
        for name in ["Content-Type", "CONTENT-TYPE", "content-type", "etag", "X-Custom", "content-length", "Location", "", "Content-Typ"] {
            #expect(Self.head.value(forHTTPHeaderField: name) == foundation.value(forHTTPHeaderField: name), "\(name)")
        }
        #expect(Self.head.value(forHTTPHeaderField: "X-CUSTOM") == "a, b")
        #expect(Self.head.value(forHTTPHeaderField: "Location") == nil)
    }

    @Test func theFoundationResponseCarriesEverything() throws {
        let foundation = try #require(Self.head.makeHTTPURLResponse())
        #expect(foundation.url == Self.url)
        #expect(foundation.statusCode == 200)
        #expect(foundation.mimeType == "image/png")
        #expect(foundation.expectedContentLength == 98)
        #expect(foundation.allHeaderFields.count == 4)
        // And back: the same fields, by name.
        let back = HTTPResponseHead(foundation)
        #expect(back.statusCode == 200 && back.url == Self.url)
        for field in Self.head.fields { #expect(back.value(forHTTPHeaderField: field.name) == field.value) }
    }

    @Test func aTransportResponseBuiltEitherWayReadsTheSame() throws {
        let foundation = try #require(Self.head.makeHTTPURLResponse())
        let fromHead = TransportResponse(head: Self.head, body: Data([1]))
        let fromFoundation = TransportResponse(response: foundation, body: Data([1]))
        #expect(fromHead.response.statusCode == fromFoundation.head.statusCode)
        #expect(fromHead.response.value(forHTTPHeaderField: "etag") == fromFoundation.head.value(forHTTPHeaderField: "ETAG"))
        var replaced = fromHead
        replaced.response = HTTPURLResponse(url: Self.url, statusCode: 304, httpVersion: nil, headerFields: ["ETag": "\"v2\""])!
        #expect(replaced.head.statusCode == 304)
        #expect(replaced.head.value(forHTTPHeaderField: "etag") == "\"v2\"")
    }

    /// The pipeline's response builds its `URLResponse` on first read and keeps it; a Foundation
    /// response given to it is kept as is, and its head read from it.
    @Test func aLoadedResponseBuildsItsURLResponseOnceOnDemand() throws {
        let loaded = LoadedResponse(head: Self.head)
        let first = loaded.urlResponse, second = loaded.urlResponse
        #expect(first === second)
        #expect((first as? HTTPURLResponse)?.value(forHTTPHeaderField: "ETag") == "\"v1\"")
        let file = URLResponse(url: URL(fileURLWithPath: "/tmp/a.png"), mimeType: "image/png", expectedContentLength: 3, textEncodingName: nil)
        let local = LoadedResponse(file)
        #expect(local.head == nil)
        #expect(local.urlResponse === file)
        let http = try #require(Self.head.makeHTTPURLResponse())
        #expect(LoadedResponse(http).head?.value(forHTTPHeaderField: "x-custom") == "a, b")
        #expect(LoadedResponse(http).urlResponse === http)
    }

    /// `ImageResponse.urlResponse` reads through, and setting it replaces the response.
    @Test func anImageResponseReadsItsURLResponseThrough() throws {
        let image = Image(width: 1, height: 1, layout: .gray, pixels: Data([0]))
        var response = ImageResponse(image: image, request: ImageRequest(url: Self.url), cacheLayer: .network,
                                     urlResponse: LoadedResponse(head: Self.head))
        #expect((response.urlResponse as? HTTPURLResponse)?.statusCode == 200)
        response.urlResponse = nil
        #expect(response.urlResponse == nil)
        let given = HTTPURLResponse(url: Self.url, statusCode: 203, httpVersion: nil, headerFields: nil)!
        let public_ = ImageResponse(image: image, request: ImageRequest(url: Self.url), cacheLayer: .network, urlResponse: given)
        #expect(public_.urlResponse === given)
    }
}
