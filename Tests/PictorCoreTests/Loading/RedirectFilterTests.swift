import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import PictorTestSupport
import Synchronization
import Testing

/// The loader's redirect filter: asked for every hop's target by the one redirect policy, after
/// its scheme rule; a refused target is never requested and the load is not retried. Scripted
/// transport only: nothing is sent anywhere.
struct RedirectFilterTests {
    /// Enough of a PNG for the loader's check of the first bytes.
    static let image = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
    static let origin = URL(string: "http://origin.test/a.png")!
    static let inside = URL(string: "http://origin.test/b.png")!
    static let outside = URL(string: "http://elsewhere.test/c.png")!

    /// A transport where `origin` redirects to `first`, which redirects to `second` (when given).
    static func transport(first: URL, second: URL? = nil) -> MockTransport {
        let transport = MockTransport()
        transport.answer(origin, MockTransport.Answer(statusCode: 302, headers: ["Location": first.absoluteString]))
        if let second {
            transport.answer(first, MockTransport.Answer(statusCode: 301, headers: ["Location": second.absoluteString]))
            transport.answer(second, MockTransport.Answer(body: image))
        } else {
            transport.answer(first, MockTransport.Answer(body: image))
        }
        return transport
    }

    static func loader(_ transport: MockTransport, filter: RedirectFilter?) -> DataLoader {
        DataLoader(transport: transport) {
            $0.redirectFilter = filter
            $0.sleep = { _ in }
        }
    }

    @Test func aRefusedTargetIsNeverRequestedNorRetried() async throws {
        let transport = Self.transport(first: Self.outside)
        let asked = TargetLog()
        let loader = Self.loader(transport) { asked.record($0); return $0.host == "origin.test" }
        do {
            _ = try await loader.data(for: URLRequest(url: Self.origin))
            Issue.record("the redirect was followed")
        } catch let error as DataLoadingError {
            #expect(error == .redirectRefused)
            #expect(error.kind == .redirectRefused)
            #expect(!error.isTransient)
            #expect(error.attempts == 1)
            #expect(error.description == "redirect refused: the loader's redirect filter does not allow its target")
        }
        #expect(transport.requests.map(\.url) == [Self.origin])
        #expect(asked.targets == [Self.outside], "the start URL is not the filter's to judge")
    }

    @Test func everyHopIsAsked() async throws {
        let transport = Self.transport(first: Self.inside, second: Self.outside)
        let asked = TargetLog()
        let loader = Self.loader(transport) { asked.record($0); return $0.host == "origin.test" }
        await #expect(throws: DataLoadingError.redirectRefused) { _ = try await loader.data(for: URLRequest(url: Self.origin)) }
        #expect(transport.requests.map(\.url) == [Self.origin, Self.inside])
        #expect(asked.targets == [Self.inside, Self.outside])
    }

    @Test func allowedHopsAreFollowed() async throws {
        let transport = Self.transport(first: Self.inside)
        let loader = Self.loader(transport) { $0.host == "origin.test" }
        let (data, _) = try await loader.data(for: URLRequest(url: Self.origin))
        #expect(data == Self.image)
        #expect(transport.requests.map(\.url) == [Self.origin, Self.inside])
    }

    /// The scheme rule speaks first: its refusal keeps its own kind, and the filter is not asked.
    @Test func theSchemeRuleComesFirst() async throws {
        let transport = Self.transport(first: URL(string: "file:///etc/passwd")!)
        let asked = TargetLog()
        let loader = Self.loader(transport) { asked.record($0); return true }
        await #expect(throws: DataLoadingError.redirectNotAllowed(fromScheme: "http", toScheme: "file")) {
            _ = try await loader.data(for: URLRequest(url: Self.origin))
        }
        #expect(asked.targets.isEmpty)
    }

    @Test func withoutAFilterEveryHopTheRulesAllowIsFollowed() async throws {
        let transport = Self.transport(first: Self.outside)
        let (data, _) = try await Self.loader(transport, filter: nil).data(for: URLRequest(url: Self.origin))
        #expect(data == Self.image)
    }
}

/// The targets a filter was asked about, in order.
final class TargetLog: Sendable {
    private let urls = Mutex<[URL]>([])
    func record(_ url: URL) { urls.withLock { $0.append(url) } }
    var targets: [URL] { urls.withLock { $0 } }
}
