internal import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorCore
@testable import PictorCurl
import PictorTestSupport
import Testing

/// Transport failures have named kinds that keep libcurl's code and text, and a loader's error
/// says how many attempts it made. Nothing here leaves 127.0.0.1: the kinds that would need
/// another host (DNS, an unreachable network) are checked on the mapping of libcurl's code.
@Suite(.timeLimit(.minutes(5)))
struct CurlErrorKindTests {

    @Test func aClosedLoopbackPortIsARefusedConnection() async throws {
        let transport = CurlFixtures.transport()
        let port = try CurlFixtures.closedPort()
        let error = try #require(await failure { _ = try await transport.send(CurlFixtures.request(URL(string: "http://127.0.0.1:\(port)/a.png")!)) })
        #expect(error.kind == .connectionRefused, "\(error)")
        #expect(error.curlCode == Int(CURLE_COULDNT_CONNECT.rawValue))
        #expect(error.transportCode == URLError.cannotConnectToHost.rawValue)
        #expect(error.transportMessage?.contains("\(port)") == true, "libcurl's own text: \(error)")
        #expect(error.isTransient)
        #expect(error.description.hasPrefix("connection refused (libcurl error 7: "), "\(error)")
    }

    @Test func theLoadersMessageCountsTheAttempts() async throws {
        var configuration = DataLoader.Configuration()
        configuration.sleep = { _ in }   // the backoff waits are not what is tested
        let loader = DataLoader(transport: CurlFixtures.transport(), configuration: configuration)
        let port = try CurlFixtures.closedPort()
        let error = try #require(await failure { _ = try await loader.data(for: URLRequest(url: URL(string: "http://127.0.0.1:\(port)/a.png")!)) })
        #expect(error.kind == .connectionRefused, "\(error)")
        #expect(error.attempts == 3)
        #expect(error.elapsed != nil)
        // "connection refused after 3 attempts in N ms (last attempt: libcurl error 7: Failed to connect …)"
        #expect(error.description.hasPrefix("connection refused after 3 attempts in "), "\(error)")
        #expect(error.description.contains(" (last attempt: libcurl error 7: "), "\(error)")
        #expect(error.localizedDescription == error.description)
        // What happened is not part of what failed: the error still equals its bare kind.
        #expect(error == .transport(.connectionRefused, code: URLError.cannotConnectToHost.rawValue,
                                    message: error.transportMessage ?? "", curlCode: Int(CURLE_COULDNT_CONNECT.rawValue)))
    }

    @Test(.enabled(if: CurlTLSFixture.isAvailable)) func anUntrustedCertificateIsNamedAndNotRetried() async throws {
        let fixture = try CurlTLSFixture()
        defer { fixture.stop() }
        let transport = CurlFixtures.transport()
        let error = try #require(await failure { _ = try await transport.send(CurlFixtures.request(URL(string: "\(fixture.httpsBase)/a.png")!)) })
        #expect(error.kind == .certificateUntrusted, "\(error)")
        #expect(error.curlCode == Int(CURLE_PEER_FAILED_VERIFICATION.rawValue), "\(error)")
        #expect(error.transportCode == URLError.serverCertificateUntrusted.rawValue)
        #expect(!error.isTransient)
        #expect(error.description.hasPrefix("server certificate untrusted (libcurl error 60: "), "\(error)")
    }

    @Test(arguments: [
        (CURLE_COULDNT_RESOLVE_HOST, 0, DataLoadingError.Kind.hostNotFound, true),
        (CURLE_COULDNT_RESOLVE_PROXY, 0, .hostNotFound, true),
        (CURLE_COULDNT_CONNECT, ECONNREFUSED, .connectionRefused, true),
        (CURLE_COULDNT_CONNECT, EHOSTUNREACH, .cannotConnect, true),
        (CURLE_OPERATION_TIMEDOUT, 0, .connectionTimedOut, true),
        (CURLE_SSL_CONNECT_ERROR, 0, .tlsHandshakeFailed, true),
        (CURLE_PEER_FAILED_VERIFICATION, 0, .certificateUntrusted, false),
        (CURLE_GOT_NOTHING, 0, .connectionLost, true),
        (CURLE_WEIRD_SERVER_REPLY, 0, .badServerResponse, false),
        (CURLE_BAD_CONTENT_ENCODING, 0, .contentDecodingFailed, false),
        (CURLE_URL_MALFORMAT, 0, .badURL, false),
        (CURLE_SEND_FAIL_REWIND, 0, .transport, true),
    ])
    func libcurlCodesMapToNamedKinds(code: CURLcode, osErrno: Int32, kind: DataLoadingError.Kind, transient: Bool) {
        let context = CurlErrorMapping.Context(wireBytes: 0, message: "libcurl's text", osErrno: osErrno)
        let error = CurlErrorMapping.error(for: code, context: context)
        #expect(error.kind == kind, "\(error)")
        #expect(error.kind.isTransport)
        #expect(error.curlCode == Int(code.rawValue))
        #expect(error.transportMessage == "libcurl's text")
        #expect(error.isTransient == transient, "\(error)")
        #expect(error.description == "\(kind) (libcurl error \(code.rawValue): libcurl's text)")
    }

    @Test(arguments: [
        (CURLE_RECV_ERROR, "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0",
         URLError.clientCertificateRequired),
        (CURLE_SSL_CONNECT_ERROR, "OpenSSL/3.0.19: error:0A000418:SSL routines::tlsv1 alert unknown ca", .clientCertificateRejected),
        (CURLE_SEND_ERROR, "OpenSSL/3.0.19: error:0A000412:SSL routines::sslv3 alert bad certificate", .clientCertificateRejected),
        // A bare handshake failure says nothing of why.
        (CURLE_SSL_CONNECT_ERROR, "OpenSSL/3.0.19: error:0A000410:SSL routines::sslv3 alert handshake failure", .secureConnectionFailed),
        (CURLE_RECV_ERROR, "Recv failure: Connection reset by peer", .networkConnectionLost),
    ])
    func aServersAlertAboutTheClientCertificateIsARejection(code: CURLcode, message: String, urlCode: URLError.Code) {
        let error = CurlErrorMapping.error(for: code, context: .init(wireBytes: 0, message: message))
        #expect(error.transportCode == urlCode.rawValue, "\(error)")
        #expect(error.transportMessage == message)
        #expect(error.isTransient == (urlCode != .clientCertificateRequired && urlCode != .clientCertificateRejected), "\(error)")
    }

    @Test func aHostNotFoundWithoutTextKeepsLibcurlsTextForTheCode() {
        let error = CurlErrorMapping.error(for: CURLE_COULDNT_RESOLVE_HOST, context: .init(wireBytes: 0, message: ""))
        #expect(error.kind == .hostNotFound)
        #expect(error.transportCode == URLError.cannotFindHost.rawValue)
        #expect(error.transportMessage == String(cString: curl_easy_strerror(CURLE_COULDNT_RESOLVE_HOST)))
    }
}
