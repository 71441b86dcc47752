import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorCore
import PictorTestSupport
import Testing
@testable import PictorService

/// The source rules on every redirect hop, the transport's refusal of an address, and the byte
/// limit handed to the loader: a ``DataLoader`` over a scripted transport (nothing is sent
/// anywhere).
struct ServiceSourceRuleTests {
    static let origin = URL(string: "http://origin.test/photo.png")!

    /// A service whose pipeline loads through a `DataLoader` over `transport`.
    static func service(
        _ transport: MockTransport, _ change: (inout ImageService.Configuration) -> Void = { _ in },
        loader: (inout DataLoader.Configuration) -> Void = { _ in }
    ) -> ImageService {
        var configuration = ImageService.Configuration(parser: try! Fixture.unsigned())
        configuration.requestTimeout = 3600
        change(&configuration)
        var loaderConfiguration = DataLoader.Configuration()
        loaderConfiguration.sleep = { _ in }
        loader(&loaderConfiguration)
        let pipeline = ImagePipeline.Configuration(
            dataLoader: DataLoader(transport: transport, configuration: loaderConfiguration), decoder: CountingImageDecoder(),
            imageCache: ImageCache(), dataCache: InMemoryDataCache(), encoder: TestImageEncoder(), renderer: InMemoryRenderer())
        return ImageService(configuration: configuration, pipeline: pipeline)
    }

    static func get(_ service: ImageService, _ source: URL) async -> ServiceResponse {
        await service.handle(ServiceRequest(method: "GET", path: "/insecure/rs:fit:64:64/plain/\(source.absoluteString)", headers: []))
    }

    static func redirecting(to target: String) -> MockTransport {
        let transport = MockTransport()
        transport.answer(origin, MockTransport.Answer(statusCode: 302, headers: ["Location": target]))
        return transport
    }

    @Test(arguments: [
        "http://elsewhere.test/photo.png",        // off the allowed prefix
        "http://origin.test.evil.test/photo.png", // a prefix match that is another host
        "http://127.0.0.1:8080/admin",            // a literal private address
        "http://169.254.169.254/latest/meta-data/",
        "http://localhost/photo.png",
        "http://user:secret@origin.test/photo.png",
    ])
    func aRedirectOffTheSourceRulesIs403AndNotRequested(_ target: String) async throws {
        let transport = Self.redirecting(to: target)
        let service = Self.service(transport) { $0.allowedSourcePrefixes = ["http://origin.test/"] }
        let response = await Self.get(service, Self.origin)
        #expect(response.status == 403, "\(target): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        #expect(String(decoding: response.body, as: UTF8.self) == "the source redirected to a URL that is not allowed\n")
        #expect(transport.requests.map(\.url) == [Self.origin], "the target is never requested, nor the origin again")
        #expect(service.metrics.refusalsByKind[.redirectNotAllowed] == 1)
    }

    /// Schemes are the loader's redirect rule; under the service a refused one is a 403 too.
    @Test(arguments: ["file:///etc/passwd", "data:image/png;base64,AAAA"])
    func aRedirectToALocalSchemeIs403(_ target: String) async throws {
        let transport = Self.redirecting(to: target)
        let response = await Self.get(Self.service(transport), Self.origin)
        #expect(response.status == 403)
        #expect(!String(decoding: response.body, as: UTF8.self).contains("passwd"))
    }

    @Test func aRedirectWithinTheRulesIsFollowed() async throws {
        let next = URL(string: "http://origin.test/moved.png")!
        let transport = Self.redirecting(to: next.absoluteString)
        transport.answer(next, MockTransport.Answer(body: Data("not an image".utf8)))
        let service = Self.service(transport) { $0.allowedSourcePrefixes = ["http://origin.test/"] }
        let response = await Self.get(service, Self.origin)
        #expect(transport.requests.map(\.url) == [Self.origin, next])
        #expect(response.status == 422, "the body, not the redirect, is what is refused")
    }

    /// The rules of the service and the loader's own filter both hold.
    @Test func theLoadersOwnFilterStillApplies() async throws {
        let transport = Self.redirecting(to: "http://origin.test/moved.png")
        let service = Self.service(transport, loader: { $0.redirectFilter = { _ in false } })
        #expect(await Self.get(service, Self.origin).status == 403)
        #expect(transport.requests.count == 1)
    }

    @Test func anAddressTheTransportRefusesIs403() async throws {
        let transport = MockTransport()
        transport.answer(Self.origin, error: .transport(
            .addressNotAllowed, code: URLError.cannotConnectToHost.rawValue,
            message: "refused to connect to 10.0.0.5 (private) by the connect-address policy", curlCode: 7))
        let service = Self.service(transport)
        let response = await Self.get(service, Self.origin)
        #expect(response.status == 403)
        #expect(String(decoding: response.body, as: UTF8.self) == "the source resolved to a non-public address\n")
        #expect(transport.requests.count == 1, "not retried")
        #expect(service.metrics.refusalsByKind[.privateNetworkSource] == 1)
    }

    @Test func theLoaderGetsTheSourceByteLimit() throws {
        let service = Self.service(MockTransport()) { $0.maxSourceBytes = 1 << 20 }
        let loader = try #require(service.pipeline.configuration.dataLoader as? DataLoader)
        #expect(loader.configuration.maximumResponseSize == 1 << 20)
        #expect(loader.configuration.redirectFilter != nil)
        // A lower limit of the caller's own stays.
        let lower = Self.service(MockTransport(), { $0.maxSourceBytes = 1 << 20 }, loader: { $0.maximumResponseSize = 1000 })
        #expect((lower.pipeline.configuration.dataLoader as? DataLoader)?.configuration.maximumResponseSize == 1000)
        let unlimited = Self.service(MockTransport(), loader: { $0.maximumResponseSize = nil })
        #expect((unlimited.pipeline.configuration.dataLoader as? DataLoader)?.configuration.maximumResponseSize == 50 << 20)
    }

    @Test func aBodyOverTheLimitIs422() async throws {
        let transport = MockTransport()
        transport.answer(Self.origin, MockTransport.Answer(body: Data(repeating: 0x89, count: 2048)))
        let service = Self.service(transport) { $0.maxSourceBytes = 1024 }
        let response = await Self.get(service, Self.origin)
        #expect(response.status == 422)
        #expect(String(decoding: response.body, as: UTF8.self) == "the source is larger than 1024 bytes\n")
    }

    /// A loader of the caller's own kind applies its own rules; the service does not wrap it.
    @Test func anotherLoaderIsLeftAsItIs() {
        let loader = MockDataLoader()
        let service = ImageService(
            configuration: ImageService.Configuration(parser: try! Fixture.unsigned()),
            pipeline: ImagePipeline.Configuration(dataLoader: loader, decoder: CountingImageDecoder()))
        #expect(service.pipeline.configuration.dataLoader as? MockDataLoader === loader)
    }
}
