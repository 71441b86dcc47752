internal import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorCore
@testable import PictorCurl
import PictorTestSupport
import Testing

/// The connect-address policy refuses an address when libcurl is about to connect to it, after
/// DNS, on every hop. Every address here is on loopback: a refusal is shown on loopback, never by
/// sending traffic to a private or public address (if the guard failed, it would leave the
/// machine).
@Suite(.enabled(if: CurlFixtures.hasServer), .timeLimit(.minutes(5)))
struct CurlAddressPolicyTests {
    let server = CurlFixtures.server!


    /// `localhost` is a name: what it resolves to (`127.0.0.1`, and `::1` where it does) is
    /// refused before a connection is opened, so the server never sees the request.
    @Test func aLocalhostURLIsRefusedAtConnectAndTheServerSeesNothing() async throws {
        let transport = CurlFixtures.transport { $0.connectAddressPolicy = .publicOnly }
        let key = CurlFixtures.key()
        let url = URL(string: "http://localhost:\(server.port)/image?key=\(key)")!
        let error = try #require(await failure { _ = try await transport.send(CurlFixtures.request(url)) })
        #expect(error.kind == .addressNotAllowed, "\(error)")
        #expect(error.kind.isTransport)
        #expect(!error.isTransient)
        #expect(error.curlCode == Int(CURLE_COULDNT_CONNECT.rawValue))
        #expect(error.transportCode == URLError.cannotConnectToHost.rawValue)
        #expect(error.transportMessage?.contains("127.0.0.1 (loopback)") == true, "\(error)")
        #expect(error.description.hasPrefix("address not allowed (libcurl error 7: refused to connect to "), "\(error)")
        #expect(try server.requestCount(prefix: "/image?key=\(key)") == 0)
        #expect(await CurlFixtures.isDrained(transport))
    }

    @Test(arguments: ["127.0.0.1", "127.0.0.2", "[::1]", "[::ffff:127.0.0.1]", "0.0.0.0"])
    func literalLoopbackAndUnspecifiedAddressesAreRefused(_ host: String) async throws {
        let transport = CurlFixtures.transport { $0.connectAddressPolicy = .publicOnly }
        let key = CurlFixtures.key()
        let url = URL(string: "http://\(host):\(server.port)/image?key=\(key)")!
        let error = try #require(await failure { _ = try await transport.send(CurlFixtures.request(url)) })
        #expect(error.kind == .addressNotAllowed, "\(host): \(error)")
        #expect(try server.requestCount(prefix: "/image?key=\(key)") == 0)
    }

    /// The default refuses nothing: a library user's loads are unaffected.
    @Test func theDefaultPolicyConnectsToLoopback() async throws {
        let transport = CurlFixtures.transport()
        #expect(transport.configuration.connectAddressPolicy == .allowAll)
        let key = CurlFixtures.key()
        let response = try await transport.send(CurlFixtures.request(URL(string: "http://localhost:\(server.port)/image?key=\(key)")!))
        #expect(response.head.statusCode == 200)
        #expect(try server.requestCount(prefix: "/image?key=\(key)") == 1)
    }

    @Test func aPolicyThatRefusesOtherClassesConnects() async throws {
        let transport = CurlFixtures.transport { $0.connectAddressPolicy = ConnectAddressPolicy(refusing: [.linkLocal, .privateNetwork]) }
        let response = try await transport.send(CurlFixtures.request(server.url("/image?key=\(CurlFixtures.key())")))
        #expect(response.head.statusCode == 200)
    }

    @Test func anAllowedAddressIsAnException() async throws {
        let transport = CurlFixtures.transport {
            $0.connectAddressPolicy = ConnectAddressPolicy(refusing: ConnectAddressPolicy.publicOnly.refusedClasses, allowing: [.v4(127, 0, 0, 1)])
        }
        let response = try await transport.send(CurlFixtures.request(server.url("/image?key=\(CurlFixtures.key())")))
        #expect(response.head.statusCode == 200)
    }

    /// The first hop's address is allowed; the redirect leads to another loopback address, which
    /// is refused when the loader's next exchange connects, and is not retried.
    @Test func aRedirectHopIsCheckedWhenItConnects() async throws {
        var policy = ConnectAddressPolicy.publicOnly
        policy.allowedAddresses = [.v4(127, 0, 0, 1)]
        let transport = CurlFixtures.transport { $0.connectAddressPolicy = policy }
        var configuration = DataLoader.Configuration()
        configuration.sleep = { _ in }
        let loader = DataLoader(transport: transport, configuration: configuration)
        let key = CurlFixtures.key()
        let target = "http://127.0.0.2:\(server.port)/image?key=\(key)"
        let start = server.url("/absolute-redirect?key=\(key)&to=" + target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        let error = try #require(await failure { _ = try await loader.data(for: URLRequest(url: start)) })
        #expect(error.kind == .addressNotAllowed, "\(error)")
        #expect(error.attempts == 1)
        #expect(error.transportMessage?.contains("127.0.0.2 (loopback)") == true, "\(error)")
        #expect(try server.requestCount(prefix: "/absolute-redirect?key=\(key)") == 1)
        #expect(try server.requestCount(prefix: "/image?key=\(key)") == 0)
    }

    @Test func theMappingNamesEveryRefusedAddress() {
        let context = CurlErrorMapping.Context(
            declaredLength: nil, wireBytes: 0, message: "Failed to connect to localhost port 80 after 0 ms: Couldn't connect to server",
            refusedAddresses: [(IPAddress("::1")!, .loopback), (.v4(127, 0, 0, 1), .loopback)])
        let error = CurlErrorMapping.error(for: CURLE_COULDNT_CONNECT, context: context)
        #expect(error.kind == .addressNotAllowed)
        #expect(error.transportMessage == "refused to connect to ::1 (loopback), 127.0.0.1 (loopback) by the connect-address policy")
        // A refusal recorded on a transfer that failed otherwise keeps that failure's kind.
        #expect(CurlErrorMapping.error(for: CURLE_OPERATION_TIMEDOUT, context: context).kind == .connectionTimedOut)
    }
}
