import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCurl
import PictorCore
import PictorTestSupport
import Testing

/// HTTPS against nginx with a throw-away self-signed certificate: HTTP/2 when offered, the
/// certificate trusted through `caFile` only, and cleartext HTTP/1.1 alongside.
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
            Issue.record("a self-signed certificate was trusted")
        } catch let error as DataLoadingError {
            #expect(error.transportCode == URLError.serverCertificateUntrusted.rawValue, "\(error)")
        }
        let lax = CurlFixtures.transport { $0.verifiesPeer = false }
        #expect(try await lax.send(CurlFixtures.request(url)).body == fixture.file)
    }
}

/// nginx serving one file over HTTP and over HTTPS + HTTP/2 with a fresh self-signed
/// certificate for `127.0.0.1`.
struct CurlTLSFixture {
    static var isAvailable: Bool {
        NginxServer.isAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")
    }

    let directory: URL
    let certificate: URL
    let nginx: NginxServer
    let httpsPort: Int
    let file: Data

    var httpsBase: String { "https://127.0.0.1:\(httpsPort)" }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-curl-tls-\(UUID().uuidString)")
        let root = directory.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var random = SplitMix64(seed: 7)
        file = Data((0..<150_000).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        try file.write(to: root.appendingPathComponent("a.png"))
        certificate = directory.appendingPathComponent("cert.pem")
        let key = directory.appendingPathComponent("key.pem")
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", key.path, "-out", certificate.path,
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw TestServerError.failedToStart("openssl req") }
        httpsPort = try CurlFixtures.closedPort()
        nginx = try NginxServer.start(root: root, extraServerConfig: """
                listen 127.0.0.1:\(httpsPort) ssl http2;
                ssl_certificate \(certificate.path);
                ssl_certificate_key \(key.path);
            """)
    }

    func stop() {
        nginx.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
