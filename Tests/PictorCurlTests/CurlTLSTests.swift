import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCurl
import PictorCore
import PictorTestSupport
import Testing

/// HTTPS against nginx with a certificate from a throw-away private CA: HTTP/2 when offered, the
/// CA trusted through `caFile` only, and cleartext HTTP/1.1 alongside.
@Suite(.enabled(if: CurlTLSFixture.isAvailable), .timeLimit(.minutes(5)))
struct CurlTLSTests {
    @Test func httpsUsesHTTP2AndTheGivenCertificateAuthority() async throws {
        let fixture = try CurlTLSFixture()
        defer { fixture.stop() }
        let transport = CurlFixtures.transport { $0.caFile = fixture.certificate.path }
        let statistics = try #require(transport.loop?.statistics)
        let results = try await withThrowingTaskGroup(of: TransportResponse.self) { group in
            for index in 0..<16 {
                group.addTask {
                    try await transport.send(CurlFixtures.request(URL(string: "\(fixture.httpsBase)/a.png?i=\(index)")!))
                }
            }
            var results: [TransportResponse] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(results.allSatisfy { $0.response.statusCode == 200 && $0.body == fixture.file })
        #expect(statistics.http2Responses.load(ordering: .relaxed) == 16)
    }

    @Test func easyHandlesReusedAfterHTTP2TransfersStillWork() async throws {
        // libcurl refuses CURLOPT_BUFFERSIZE on a handle that kept its receive buffer from an
        // HTTP/2 transfer; that once failed every request on a reused handle (and the loader
        // retried them after a backoff).
        let fixture = try CurlTLSFixture()
        defer { fixture.stop() }
        let transport = CurlFixtures.transport { $0.caFile = fixture.certificate.path }
        let statistics = try #require(transport.loop?.statistics)
        let count = 48
        let ok = try await withThrowingTaskGroup(of: Bool.self) { group in
            var next = 0, ok = 0
            func add() {
                let index = next
                next += 1
                group.addTask {
                    let result = try await transport.send(CurlFixtures.request(URL(string: "\(fixture.httpsBase)/a.png?i=\(index)")!))
                    return result.response.statusCode == 200 && result.body == fixture.file
                }
            }
            while next < 4 { add() }
            while let result = try await group.next() {
                if result { ok += 1 }
                if next < count { add() }
            }
            return ok
        }
        #expect(ok == count)
        #expect(statistics.http2Responses.load(ordering: .relaxed) == count)
    }

    @Test func cleartextStaysHTTP1() async throws {
        let fixture = try CurlTLSFixture()
        defer { fixture.stop() }
        let transport = CurlFixtures.transport()
        let statistics = try #require(transport.loop?.statistics)
        let result = try await transport.send(CurlFixtures.request(fixture.nginx.url("/a.png")))
        #expect(result.body == fixture.file)
        #expect(statistics.http2Responses.load(ordering: .relaxed) == 0)
    }

    @Test func anUntrustedCertificateFailsUnlessVerificationIsOff() async throws {
        let fixture = try CurlTLSFixture()
        defer { fixture.stop() }
        let url = URL(string: "\(fixture.httpsBase)/a.png")!
        let strict = CurlFixtures.transport()
        do {
            _ = try await strict.send(CurlFixtures.request(url))
            Issue.record("a certificate from an unknown CA was trusted")
        } catch let error as DataLoadingError {
            #expect(error.transportCode == URLError.serverCertificateUntrusted.rawValue, "\(error)")
        }
        let lax = CurlFixtures.transport { $0.verifiesPeer = false }
        #expect(try await lax.send(CurlFixtures.request(url)).body == fixture.file)
    }
}

/// nginx serving one file over HTTP and over HTTPS + HTTP/2 with a certificate for `127.0.0.1`
/// from a fresh private CA (``TestCertificateAuthority``), whose certificate is ``certificate``;
/// with `requiresClientCertificate`, HTTPS requests need a client certificate from that CA.
struct CurlTLSFixture {
    static var isAvailable: Bool { NginxServer.isAvailable && TestCertificateAuthority.isAvailable }

    let directory: URL
    let authority: TestCertificateAuthority
    let server: HTTPSNginxServer
    /// Random bytes, served as `/a.png` (for the transport, which does not look at them).
    let file: Data
    /// A real 1×1 PNG, served as `/one.png` (for a loader, which checks that a body is an image).
    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

    /// The CA's certificate: what a client trusts.
    var certificate: URL { authority.certificate }
    var nginx: NginxServer { server.nginx }
    var httpsPort: Int { server.httpsPort }
    var httpsBase: String { "https://127.0.0.1:\(httpsPort)" }

    init(requiresClientCertificate: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-curl-tls-\(UUID().uuidString)")
        let root = directory.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var random = SplitMix64(seed: 7)
        file = Data((0..<150_000).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        try file.write(to: root.appendingPathComponent("a.png"))
        try Self.png.write(to: root.appendingPathComponent("one.png"))
        authority = try TestCertificateAuthority()
        do {
            server = try HTTPSNginxServer(root: root, authority: authority, requiresClientCertificate: requiresClientCertificate)
        } catch {
            authority.remove()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    func stop() {
        server.stop()
        authority.remove()
        try? FileManager.default.removeItem(at: directory)
    }
}
