import Foundation
@testable import PictorCore
import PictorTestSupport
@testable import PictorService

/// An ``ImageService`` over test fakes: a scripted loader (no network: unknown URLs are 404),
/// the test codec, a counting encoder, an in-memory disk tier and a pure-Swift renderer.
struct ServiceHarness {
    let loader: MockDataLoader
    let decoder = CountingImageDecoder()
    let encoder = TestImageEncoder()
    let renderer = InMemoryRenderer()
    let disk: InMemoryDataCache
    let service: ImageService

    /// A source on a name the guard accepts; only the mock loader ever sees it.
    static let source = URL(string: "http://origin.test/photo.ptst")!
    static let sourcePath = "plain/http://origin.test/photo.ptst"

    init(
        loader: MockDataLoader = MockDataLoader(), disk: InMemoryDataCache = InMemoryDataCache(),
        parser: ProcessingURLParser? = nil, _ change: (inout ImageService.Configuration) -> Void = { _ in },
        pipeline changePipeline: (inout ImagePipeline.Configuration) -> Void = { _ in }
    ) {
        self.loader = loader
        self.disk = disk
        var configuration = ImageService.Configuration(parser: try! parser ?? Fixture.unsigned())
        // No test's outcome may depend on how busy the machine is: the whole suite runs its
        // tests at once on two cores, and a 30 s deadline was seen to pass there.
        configuration.requestTimeout = 3600
        change(&configuration)
        var pipeline = ImagePipeline.Configuration(
            dataLoader: loader, decoder: decoder, imageCache: ImageCache(), dataCache: disk, encoder: encoder, renderer: renderer)
        changePipeline(&pipeline)
        service = ImageService(configuration: configuration, pipeline: pipeline)
    }

    /// Stubs the default source with a `width × height` test image.
    func stubSource(width: Int = 640, height: Int = 480, headers: [String: String]? = nil, url: URL = ServiceHarness.source) {
        loader.stub(url, MockDataLoader.Stub(headers: headers, body: TestImageCodec.encode(width: width, height: height)))
    }

    /// Requests waiting for a result being made (for tests: wait until requests have joined).
    var waitingRequests: Int { service.pipeline.encodedResults.subscriberCount }

    func get(_ path: String, method: String = "GET", headers: [(name: String, value: String)] = []) async -> ServiceResponse {
        await service.handle(ServiceRequest(method: method, path: path, headers: headers))
    }

    /// `/insecure/{options}/plain/http://origin.test/photo.ptst`.
    func image(_ options: String, method: String = "GET", headers: [(name: String, value: String)] = []) async -> ServiceResponse {
        await get("/insecure/\(options)/\(Self.sourcePath)", method: method, headers: headers)
    }
}

extension ServiceResponse {
    /// The body as text, for refusals.
    var text: String { String(decoding: body, as: UTF8.self) }
    /// The size the test encoder wrote into the body.
    var pixelSize: (width: Int, height: Int)? {
        (try? TestImageCodec.header(body)).map { ($0.width, $0.height) }
    }
}

/// Polls until `condition` holds, for states a test cannot await (requests joining a result
/// being made); the outcome never depends on timing, and the test's time limit bounds it.
func until(_ condition: () -> Bool) async {
    while !condition(), !Task.isCancelled { try? await Task.sleep(for: .milliseconds(1)) }
}
