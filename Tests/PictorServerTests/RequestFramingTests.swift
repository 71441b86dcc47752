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
    ] as [([(String, String)], Int?)])
    func aHeadThatCouldBeDelimitedTwoWaysIsRefused(headers: [(String, String)], status: Int?) {
        let refusal = RequestFraming.refusal(headers.map { (name: $0.0, value: $0.1) })
        #expect(refusal?.status == status, "\(headers)")
        if let refusal {
            #expect(refusal.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(!refusal.body.isEmpty)
        }
    }
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
}
