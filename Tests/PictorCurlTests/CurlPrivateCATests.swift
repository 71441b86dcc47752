import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCurl
import PictorCore
import PictorTestSupport
import Testing

/// A private CA (made by the test with `openssl`) trusted through a file or a hashed directory,
/// a client certificate for a server that requires one, and an untrusted certificate's error
/// naming it; each over HTTP/1.1 and HTTP/2 (nginx offers both over TLS).
@Suite(.enabled(if: CurlTLSFixture.isAvailable), .timeLimit(.minutes(5)))
struct CurlPrivateCATests {
    static let versions: [CurlTransport.HTTPVersion] = [.http1, .http2OverTLS]

    /// The fixture, started off the cooperative pool (openssl and nginx are child processes).
    func fixture(requiresClientCertificate: Bool = false) async throws -> CurlTLSFixture {
        try await offPool { try CurlTLSFixture(requiresClientCertificate: requiresClientCertificate) }
    }


    /// Sends one request for the fixture's file; returns the response and whether it came over
    /// HTTP/2.
    func load(_ fixture: CurlTLSFixture, _ configure: (inout CurlTransport.Configuration) -> Void) async throws
        -> (result: TransportResponse, http2: Bool)
    {
        let transport = CurlFixtures.transport(configure)
        let statistics = try #require(transport.loop?.statistics)
        let response = try await transport.send(CurlFixtures.request(URL(string: "\(fixture.httpsBase)/a.png")!))
        return (response, statistics.http2Responses.load(ordering: .relaxed) == 1)
    }

    @Test(arguments: versions)
    func withoutTheCAtheErrorNamesTheCertificatesSubjectAndIssuer(version: CurlTransport.HTTPVersion) async throws {
        let fixture = try await fixture()
        defer { fixture.stop() }
        let error = try #require(await failure { _ = try await load(fixture) { $0.httpVersion = version } })
        #expect(error.kind == .certificateUntrusted, "\(error)")
        #expect(!error.isTransient)
        let names = "certificate subject: \(fixture.authority.serverSubject); issuer: \(fixture.authority.subject)"
        #expect(error.transportMessage?.hasSuffix("; " + names) == true, "\(error)")
        // libcurl's own reason comes first.
        #expect(error.description.hasPrefix("server certificate untrusted (libcurl error 60: SSL certificate problem: "), "\(error)")
        #expect(error.description.contains(names), "\(error)")
    }

    @Test(arguments: versions)
    func theCAFileIsTrusted(version: CurlTransport.HTTPVersion) async throws {
        let fixture = try await fixture()
        defer { fixture.stop() }
        let (response, http2) = try await load(fixture) {
            $0.httpVersion = version
            $0.caFile = fixture.authority.certificate.path
        }
        #expect(response.response.statusCode == 200)
        #expect(response.body == fixture.file)
        #expect(http2 == (version == .http2OverTLS))
    }

    @Test(arguments: versions)
    func aHashedCADirectoryIsTrusted(version: CurlTransport.HTTPVersion) async throws {
        let fixture = try await fixture()
        defer { fixture.stop() }
        let (response, http2) = try await load(fixture) {
            $0.httpVersion = version
            $0.caPath = fixture.authority.hashedDirectory.path
        }
        #expect(response.body == fixture.file)
        #expect(http2 == (version == .http2OverTLS))
    }

    @Test func aDirectoryThatIsNotHashedTrustsNothingMore() async throws {
        let fixture = try await fixture()
        defer { fixture.stop() }
        // The CA's file is there, but OpenSSL looks certificates up by their hash only.
        let plain = fixture.directory.appendingPathComponent("plain", isDirectory: true)
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixture.authority.certificate, to: plain.appendingPathComponent("ca.pem"))
        let error = try #require(await failure { _ = try await load(fixture) { $0.caPath = plain.path } })
        #expect(error.kind == .certificateUntrusted, "\(error)")
    }

    @Test func aCertificateForAnotherHostNamesTheServersCertificate() async throws {
        let fixture = try await fixture()
        defer { fixture.stop() }
        // The chain is trusted; the name is not the certificate's (it is for IP 127.0.0.1 only).
        let transport = CurlFixtures.transport { $0.caFile = fixture.authority.certificate.path }
        let url = URL(string: "https://localhost:\(fixture.httpsPort)/a.png")!
        let error = try #require(await failure { _ = try await transport.send(CurlFixtures.request(url)) })
        #expect(error.kind == .certificateUntrusted, "\(error)")
        #expect(error.transportMessage?.contains("localhost") == true, "libcurl's reason: \(error)")
        #expect(error.transportMessage?.hasSuffix(
            "; certificate subject: \(fixture.authority.serverSubject); issuer: \(fixture.authority.subject)") == true, "\(error)")
    }

    @Test(arguments: versions)
    func aServerThatRequiresAClientCertificateGetsOne(version: CurlTransport.HTTPVersion) async throws {
        let fixture = try await fixture(requiresClientCertificate: true)
        defer { fixture.stop() }
        let authority = fixture.authority
        let without = try await load(fixture) {
            $0.httpVersion = version
            $0.caFile = authority.certificate.path
        }
        // nginx finishes the handshake and refuses the request itself.
        #expect(without.result.response.statusCode == 400)
        let with = try await load(fixture) {
            $0.httpVersion = version
            $0.caFile = authority.certificate.path
            $0.clientCertificateFile = authority.clientCertificate.path
            $0.clientKeyFile = authority.clientKey.path
        }
        #expect(with.result.response.statusCode == 200)
        #expect(with.result.body == fixture.file)
        #expect(with.http2 == (version == .http2OverTLS))
    }

    @Test func aClientCertificateFromAnotherCAIsRefusedByTheServer() async throws {
        let fixture = try await fixture(requiresClientCertificate: true)
        defer { fixture.stop() }
        let other = try await offPool { try TestCertificateAuthority(name: "Other CA") }
        defer { other.remove() }
        let (response, _) = try await load(fixture) {
            $0.caFile = fixture.authority.certificate.path
            $0.clientCertificateFile = other.clientCertificate.path
            $0.clientKeyFile = other.clientKey.path
        }
        #expect(response.response.statusCode == 400)
    }

    @Test func aKeyInTheCertificatesFileNeedsNoKeyFile() async throws {
        let fixture = try await fixture(requiresClientCertificate: true)
        defer { fixture.stop() }
        let combined = fixture.directory.appendingPathComponent("client-and-key.pem")
        try (Data(contentsOf: fixture.authority.clientCertificate) + Data(contentsOf: fixture.authority.clientKey)).write(to: combined)
        let (response, _) = try await load(fixture) {
            $0.caFile = fixture.authority.certificate.path
            $0.clientCertificateFile = combined.path
        }
        #expect(response.response.statusCode == 200)
    }

    @Test func aClientCertificateThatCannotBeUsedIsRejectedAndNotRetried() async throws {
        let fixture = try await fixture(requiresClientCertificate: true)
        defer { fixture.stop() }
        let authority = fixture.authority
        let encrypted = try await offPool { try authority.encryptedClientKey() }
        for (certificate, key) in [(authority.clientCertificate.path, encrypted.path), ("/nonexistent/client.pem", authority.clientKey.path)] {
            let error = try #require(await failure {
                _ = try await load(fixture) {
                    $0.caFile = authority.certificate.path
                    $0.clientCertificateFile = certificate
                    $0.clientKeyFile = key
                }
            })
            #expect(error.kind == .clientCertificateRejected, "\(error)")
            #expect(!error.isTransient, "\(error)")
        }
    }

    /// A server that refuses a client in TLS itself (as Envoy or HAProxy do, unlike nginx)
    /// sends an alert; TLS 1.3 sends it after the client's side of the handshake, so libcurl
    /// sees a failed read.
    @Test(arguments: [false, true])
    func aRefusalInTheHandshakeIsARejectedClientCertificate(tls12Only: Bool) async throws {
        let authority = try await offPool { try TestCertificateAuthority() }
        let other = try await offPool { try TestCertificateAuthority(name: "Other CA") }
        defer { authority.remove(); other.remove() }
        let server = try await offPool { try OpenSSLServer(authority: authority, tls12Only: tls12Only) }
        defer { server.stop() }
        func loader(_ certificate: TestCertificateAuthority?) -> DataLoader {
            var configuration = CurlTransport.Configuration()
            configuration.caFile = authority.certificate.path
            configuration.clientCertificateFile = certificate?.clientCertificate.path
            configuration.clientKeyFile = certificate?.clientKey.path
            return DataLoader(transport: CurlTransport(configuration: configuration)) { $0.sleep = { _ in } }
        }
        let request = URLRequest(url: server.url)
        let foreign = try #require(await failure { _ = try await loader(other).data(for: request) })
        #expect(foreign.kind == .clientCertificateRejected, "\(foreign)")
        #expect(foreign.transportCode == URLError.clientCertificateRejected.rawValue, "\(foreign)")
        #expect(foreign.attempts == 1, "not retried: \(foreign)")
        if !tls12Only {
            let missing = try #require(await failure { _ = try await loader(nil).data(for: request) })
            #expect(missing.kind == .clientCertificateRejected, "\(missing)")
            #expect(missing.transportCode == URLError.clientCertificateRequired.rawValue, "\(missing)")
            #expect(missing.attempts == 1, "not retried: \(missing)")
        }
        // The status page is not an image: the loader got past TLS and HTTP to the body.
        let accepted = try #require(await failure { _ = try await loader(authority).data(for: request) })
        #expect(accepted.kind == .notAnImage, "\(accepted)")
    }

    @Test func theLoaderTrustsItsTransportsCA() async throws {
        let fixture = try await fixture()
        defer { fixture.stop() }
        let url = URL(string: "\(fixture.httpsBase)/one.png")!
        var configuration = CurlTransport.Configuration()
        configuration.caFile = fixture.authority.certificate.path
        let trusting = DataLoader(transport: CurlTransport(configuration: configuration))
        let (data, response) = try await trusting.data(for: URLRequest(url: url))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data == CurlTLSFixture.png)

        let strict = DataLoader(transport: CurlFixtures.transport()) { $0.sleep = { _ in } }
        let error = try #require(await failure { _ = try await strict.data(for: URLRequest(url: url)) })
        #expect(error.kind == .certificateUntrusted, "\(error)")
        #expect(error.attempts == 1, "an untrusted certificate is not retried: \(error)")
        #expect(error.description.contains("issuer: \(fixture.authority.subject)"), "\(error)")
    }
}

/// Where the certificate authorities come from: the caller's settings, else the variables the
/// curl command-line tool reads, in its order.
@Suite struct CertificateAuthorityEnvironmentTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var environment: [String: String]
        var caFile: String? = nil
        var caPath: String? = nil
        var verifiesPeer = true
        var expectedFile: String?
        var expectedPath: String?
        var used: [String]
        var testDescription: String { "\(environment.sorted { $0.key < $1.key }) file \(caFile ?? "-") path \(caPath ?? "-")" }
    }

    static let all = ["CURL_CA_BUNDLE": "/bundle.pem", "SSL_CERT_FILE": "/file.pem", "SSL_CERT_DIR": "/dir"]

    static let cases: [Case] = [
        Case(environment: [:], expectedFile: nil, expectedPath: nil, used: []),
        // CURL_CA_BUNDLE alone is read when it is set: SSL_CERT_DIR is not used with it.
        Case(environment: all, expectedFile: "/bundle.pem", expectedPath: nil, used: ["CURL_CA_BUNDLE"]),
        Case(environment: ["SSL_CERT_FILE": "/file.pem", "SSL_CERT_DIR": "/dir"], expectedFile: "/file.pem", expectedPath: "/dir",
             used: ["SSL_CERT_DIR", "SSL_CERT_FILE"]),
        Case(environment: ["SSL_CERT_DIR": "/dir"], expectedFile: nil, expectedPath: "/dir", used: ["SSL_CERT_DIR"]),
        Case(environment: ["SSL_CERT_FILE": "/file.pem"], expectedFile: "/file.pem", expectedPath: nil, used: ["SSL_CERT_FILE"]),
        // An empty variable is unset.
        Case(environment: ["CURL_CA_BUNDLE": "", "SSL_CERT_FILE": "/file.pem"], expectedFile: "/file.pem", expectedPath: nil,
             used: ["SSL_CERT_FILE"]),
        // The caller's setting wins over every variable, as curl's --cacert and --capath do.
        Case(environment: all, caFile: "/mine.pem", expectedFile: "/mine.pem", expectedPath: nil, used: []),
        Case(environment: all, caPath: "/my-dir", expectedFile: nil, expectedPath: "/my-dir", used: []),
        // Without verification (curl's --insecure) nothing is read.
        Case(environment: all, verifiesPeer: false, expectedFile: nil, expectedPath: nil, used: []),
    ]

    @Test(arguments: cases) func theCurlToolsOrder(_ example: Case) {
        var configuration = CurlTransport.Configuration()
        configuration.caFile = example.caFile
        configuration.caPath = example.caPath
        configuration.verifiesPeer = example.verifiesPeer
        let used = configuration.trustCertificateAuthorities(fromEnvironment: example.environment)
        #expect(configuration.caFile == example.expectedFile)
        #expect(configuration.caPath == example.expectedPath)
        #expect(used == example.used)
    }

    @Test func aCertificateAboveTheServersOwnSaysWhichItIs() {
        let names = CurlErrorMapping.CertificateNames(
            subject: "CN=Intermediate,O=Example", issuer: "CN=Root,O=Example", depth: 1, serverSubject: "CN=cdn.internal")
        #expect(names.text == "certificate subject: CN=Intermediate,O=Example; issuer: CN=Root,O=Example (depth 1 of the chain of CN=cdn.internal)")
        #expect(CurlErrorMapping.CertificateNames(subject: "", issuer: "CN=CA").text == "certificate subject: (empty); issuer: CN=CA")
    }
}
