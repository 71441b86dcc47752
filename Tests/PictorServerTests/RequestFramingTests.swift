import Foundation
import PictorService
import PictorTestSupport
import Testing
@testable import PictorServer

/// How a request's body is delimited is decided by its head alone, and a head that two readers
/// could delimit differently (a front proxy and this server) is refused, not guessed at: that
/// disagreement is what request smuggling exploits (RFC 9112 §6.1, §6.3).
struct RequestFramingTests {
    @Test(arguments: [
        ([("Host", "x")], nil),
        ([("Content-Length", "5")], nil),
        ([("Content-Length", "0")], nil),
        ([("Transfer-Encoding", "chunked")], nil),
        ([("Transfer-Encoding", "Chunked")], nil),
        ([("Transfer-Encoding", " chunked ")], nil),
        // Both: a proxy reading Content-Length and a server reading chunks split differently.
        ([("Content-Length", "5"), ("Transfer-Encoding", "chunked")], 400),
        ([("Transfer-Encoding", "chunked"), ("content-length", "0")], 400),
        // Two lengths that differ, a list of them, or no number: no length can be trusted.
        ([("Content-Length", "5"), ("Content-Length", "6")], 400),
        ([("Content-Length", "5, 6")], 400),
        ([("Content-Length", "5"), ("Content-Length", "5")], 400),
        ([("Content-Length", "")], 400),
        ([("Content-Length", "-1")], 400),
        ([("Content-Length", "+5")], 400),
        ([("Content-Length", "0x10")], 400),
        ([("Content-Length", "99999999999999999999999")], 400),
        // Codings libmicrohttpd does not decode: their body has no end it could find.
        ([("Transfer-Encoding", "gzip, chunked")], 501),
        ([("Transfer-Encoding", "identity")], 501),
        ([("Transfer-Encoding", "chunked, chunked")], 501),
        ([("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")], 501),
        ([("Transfer-Encoding", "")], 501),
        // A name that is not a token (RFC 9112 §5.1: whitespace before the colon is a 400): a
        // lenient front reads `Content-Length : 5` as a length, libmicrohttpd as another field.
        ([("Content-Length ", "5")], 400),
        ([("Content-Length\t", "5")], 400),
        ([("Transfer-Encoding ", "chunked")], 400),
        ([("X Y", "1")], 400),
        ([("X\u{7F}", "1")], 400),
        ([("", "1")], 400),
        // libmicrohttpd 0.9.75 joins a folded line (obs-fold) to the field's name:
        // `Content-Length:\r\n 5` arrives as `Content-Length5`.
        ([("Content-Length5", "")], 400),
        ([("content-length0", "5")], 400),
        ([("Transfer-Encodingchunked", "")], 400),
        // and drops a bare CR inside a value, so `X: a\rContent-Length: 5` arrives as one field.
        ([("X", "aContent-Length: 5")], 400),
        ([("X", "a transfer-encoding:chunked")], 400),
        ([("X-Content-Length-Hint", "5")], nil),
        ([("Accept", "image/avif,image/webp;q=0.9,*/*;q=0.8")], nil),
    ] as [([(String, String)], Int?)])
    func aHeadThatCouldBeDelimitedTwoWaysIsRefused(headers: [(String, String)], status: Int?) {
        let refusal = RequestFraming.refusal(headers.map { (name: $0.0, value: $0.1) }, version: "HTTP/1.1")
        #expect(refusal?.status == status, "\(headers)")
        if let refusal {
            #expect(refusal.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(!refusal.body.isEmpty)
        }
    }
}

/// HTTP/1.0 has no chunked coding: a `Transfer-Encoding` in an HTTP/1.0 request means a front
/// and this server may disagree on its end (RFC 9112 §6.1), so it is refused and closed.
@Test func transferEncodingInHTTP10IsRefused() {
    #expect(RequestFraming.refusal([(name: "Transfer-Encoding", value: "chunked")], version: "HTTP/1.0")?.status == 400)
    #expect(RequestFraming.refusal([(name: "Content-Length", value: "5")], version: "HTTP/1.0") == nil)
    #expect(RequestFraming.refusal([(name: "Transfer-Encoding", value: "chunked")], version: "HTTP/1.1") == nil)
}

/// The same through the server: the refusal is answered, the connection closed (what follows on
/// it is never read as a request), logged and counted.
@Suite(.serialized, .enabled(if: serverTestsCanRun, "needs nginx and ../shared/corpus"))
struct RequestFramingServerTests {
    @Test func aSmuggledRequestIsNeverServed() async throws {
        let h = try await ServerHarness(accessLog: .json)
        let (both, bothClosed, lengths, coding, metrics) = try await offPool { [port = h.port] in
            let first = try TestHTTPClient(port: port)
            // A front that reads Content-Length sees one request with a 5-byte body; a server that
            // reads chunks would see a second request, for /metrics, hidden inside it.
            try first.send(Data(("GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                                 + "0\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").utf8))
            let both = try first.readResponse()
            let bothClosed = try first.isClosedByServer()
            let second = try TestHTTPClient(port: port)
            try second.send(Data("GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!".utf8))
            let third = try TestHTTPClient(port: port)
            try third.send(Data("GET /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n".utf8))
            return (both, bothClosed, try second.readResponse(), try third.readResponse(),
                    try TestHTTPClient.get(port: port, "/metrics"))
        }
        await h.stop()
        #expect(both.status == 400)
        #expect(both.header("Connection")?.lowercased() == "close")
        #expect(bothClosed, "the hidden request is never read")
        #expect(lengths.status == 400)
        #expect(coding.status == 501)
        let page = String(decoding: metrics.body, as: UTF8.self)
        #expect(page.contains("pictor_server_refusals_total{status=\"400\"} 2\n"), "\(page)")
        #expect(page.contains("pictor_server_refusals_total{status=\"501\"} 1\n"), "\(page)")
        let logged = h.log.all.filter { $0.contains(#""path":"/health""#) }
        #expect(logged.filter { $0.contains(#""status":400,"#) }.count == 2, "\(h.log.all)")
        #expect(logged.filter { $0.contains(#""status":501,"#) }.count == 1, "\(h.log.all)")
        #expect(!h.log.all.contains { $0.contains(#""path":"/metrics""#) && !$0.contains(#""status":200"#) } )
    }

    /// Spellings libmicrohttpd does not read as a length, where a lenient front would: each is a
    /// 400 and its connection closed, so the body is never read as the next request.
    @Test(arguments: [
        "Content-Length : 5\r\n", "Content-Length\t: 5\r\n", "Content-Length:\r\n 5\r\n", "Content-Length: 5\r\n 0\r\n",
        "X: a\rContent-Length: 5\r\n", "Transfer-Encoding : chunked\r\n",
    ])
    func aLengthSpelledSoThatOnlyAFrontReadsItIsRefused(field: String) async throws {
        let h = try await ServerHarness(accessLog: .json)
        let (response, closed) = try await offPool { [port = h.port] in
            let client = try TestHTTPClient(port: port)
            try client.send(Data(("GET /health HTTP/1.1\r\nHost: x\r\n" + field + "\r\nabcdeGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").utf8))
            return (try client.readResponse(), try client.isClosedByServer())
        }
        await h.stop()
        #expect(response.status == 400, "\(field.debugDescription)")
        #expect(closed, "\(field.debugDescription): the rest is never read as a request")
        #expect(!h.log.all.contains { $0.contains("abcde") }, "\(h.log.all)")
    }

    /// A control byte in the request target (a tab, a bare CR, DEL) or bytes that are not UTF-8
    /// are a 400: they must be percent-encoded, and a repaired target (U+FFFD) would name
    /// another source than the one signed or sent.
    @Test(arguments: ["/hea\tlth", "/insecure/rs:fit:8:8/plain/http://origin.test/a\u{7F}.jpg", "/a\rb"])
    func aTargetWithAControlByteIsRefused(target: String) async throws {
        let h = try await ServerHarness(accessLog: .json)
        let response = try await offPool { [port = h.port] in
            let client = try TestHTTPClient(port: port)
            try client.send(Data("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            return try client.readResponse()
        }
        await h.stop()
        #expect(response.status == 400, "\(target.debugDescription)")
    }

    @Test func aTargetThatIsNotUTF8IsRefused() async throws {
        let h = try await ServerHarness(accessLog: .json)
        let response = try await offPool { [port = h.port] in
            let client = try TestHTTPClient(port: port)
            try client.send(Data("GET /insecure/rs:fit:8:8/plain/http://origin.test/a".utf8) + Data([0xFF]) + Data(".jpg HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            return try client.readResponse()
        }
        await h.stop()
        #expect(response.status == 400)
    }

    @Test func aTargetInAbsoluteFormIsServed() async throws {
        let h = try await ServerHarness(accessLog: .json)
        let response = try await offPool { [port = h.port] in try TestHTTPClient(port: port).request("http://127.0.0.1/health") }
        await h.stop()
        #expect(response.status == 200)
        #expect(h.log.all.contains { $0.contains(#""path":"/health","status":200"#) }, "\(h.log.all)")
    }

    @Test func transferEncodingInAnHTTP10RequestIsRefusedAndClosed() async throws {
        let h = try await ServerHarness(accessLog: .json)
        let (response, closed) = try await offPool { [port = h.port] in
            let client = try TestHTTPClient(port: port)
            try client.send(Data("GET /health HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n".utf8))
            return (try client.readResponse(), try client.isClosedByServer())
        }
        await h.stop()
        #expect(response.status == 400)
        #expect(closed)
    }
}

/// A body over ``ImageServer/Configuration/maxDiscardedBodyBytes`` is answered 413 and its
/// connection closed, and logged 413 (not 499, which says the client left), as nginx answers
/// a body over `client_max_body_size`.
@Suite(.serialized, .enabled(if: serverTestsCanRun, "needs nginx and ../shared/corpus"))
struct BodyLimitServerTests {
    @Test(arguments: [65_537, 10_000_000])
    func aBodyOverTheLimitIs413(length: Int) async throws {
        let h = try await ServerHarness(accessLog: .json)
        let (response, metrics) = try await offPool { [port = h.port] in
            let client = try TestHTTPClient(port: port)
            try client.send(Data("GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: \(length)\r\n\r\n".utf8))
            // Sends until the server stops reading; the answer is read after.
            _ = try? client.send(Data(repeating: UInt8(ascii: "a"), count: min(length, 200_000)))
            return (try client.readResponse(), try TestHTTPClient.get(port: port, "/metrics"))
        }
        await h.stop()
        #expect(response.status == 413)
        #expect(response.header("Connection")?.lowercased() == "close")
        let page = String(decoding: metrics.body, as: UTF8.self)
        #expect(page.contains("pictor_server_refusals_total{status=\"413\"} 1\n"), "\(page)")
        #expect(h.log.all.contains { $0.contains(#""path":"/health","status":413,"#) }, "\(h.log.all)")
    }

    /// A chunked body has no declared length: once what was read passes the limit its
    /// connection is closed (libmicrohttpd takes no answer in the middle of a body), and it is
    /// logged and counted 413, not 499.
    @Test func aChunkedBodyThatGrowsOverTheLimitIsClosedAndLogged413() async throws {
        let h = try await ServerHarness(accessLog: .json)
        let (closed, metrics) = try await offPool { [port = h.port] in
            let client = try TestHTTPClient(port: port)
            try client.send(Data("GET /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
            let chunk = Data("4000\r\n".utf8) + Data(repeating: UInt8(ascii: "a"), count: 0x4000) + Data("\r\n".utf8)
            for _ in 0..<12 { guard (try? client.send(chunk)) != nil else { break } }
            return ((try? client.readResponse()) == nil, try TestHTTPClient.get(port: port, "/metrics"))
        }
        let log = h.log
        try await HangUpTests.waitUntil { log.all.contains { $0.contains(#""path":"/health","status":413,"#) } }
        await h.stop()
        #expect(closed)
        #expect(String(decoding: metrics.body, as: UTF8.self).contains("pictor_server_refusals_total{status=\"413\"} 1\n"))
        #expect(!h.log.all.contains { $0.contains("internal error") }, "\(h.log.all)")
    }
}

/// RFC 9112 §3.2.2: a server must accept a target in absolute form (`GET http://host/path`),
/// which it reads as the path and query after the authority.
@Suite struct AbsoluteFormTests {
    @Test(arguments: [
        ("http://x/health", "/health"), ("HTTPS://img.example:8443/a/b?c=d", "/a/b?c=d"), ("http://x", "/"),
        ("/health", "/health"), ("http:/health", "http:/health"), ("*", "*"), ("http://x?y", "/?y"),
    ])
    func aTargetInAbsoluteFormIsReadAsItsPath(target: String, path: String) {
        #expect(Exchange.originForm(of: target) == path)
    }
}
