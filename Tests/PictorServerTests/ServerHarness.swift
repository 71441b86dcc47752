import Foundation
import Pictor
import PictorService
import PictorTestSupport
import Synchronization
@testable import PictorServer

/// The shared corpus beside the checkout (`../shared/corpus`).
let sharedCorpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus", isDirectory: true)

/// A 1800×1200 JPEG of the corpus.
let landscapePath = "/exif-orientation/Landscape_1.jpg"

/// What the server tests need to run: nginx and the corpus.
let serverTestsCanRun = NginxServer.isAvailable
    && FileManager.default.fileExists(atPath: sharedCorpus.appendingPathComponent(landscapePath).path)

/// Lines written to the access log.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// nginx over the corpus (the origin, on loopback), and an ``ImageServer`` on `127.0.0.1` and
/// a free port with the Linux pipeline (libcurl, libvips), signed URLs, private networks
/// allowed (the origin is on loopback), no disk tier unless `pipeline` adds one.
struct ServerHarness {
    /// imgproxy's documentation key and salt.
    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"

    let origin: NginxServer
    let server: ImageServer
    let log = LogLines()
    let policy: SignaturePolicy

    var port: Int {
        guard case .tcp(_, let port) = server.address else { return 0 }
        return port
    }

    init(
        accessLog: AccessLogFormat = .text, _ change: (inout ImageServer.Configuration) -> Void = { _ in },
        service changeService: (inout ImageService.Configuration) -> Void = { _ in },
        pipeline changePipeline: (inout ImagePipeline.Configuration) -> Void = { _ in }
    ) async throws {
        origin = try await offPool { try NginxServer.start(root: sharedCorpus) }
        policy = try SignaturePolicy(hexKeys: [Self.key], hexSalts: [Self.salt])
        var serviceConfiguration = ImageService.Configuration(parser: try ProcessingURLParser(signature: policy))
        serviceConfiguration.allowsPrivateNetwork = true
        // A loaded CI machine can hold a request's tasks behind other tests' work for longer
        // than the 30 s default; a test that means to see a timeout sets its own.
        serviceConfiguration.requestTimeout = 600
        changeService(&serviceConfiguration)
        var pipeline = ImagePipeline.Configuration.standard(
            diskCache: nil, imageCache: ImageCache(), dataLoader: DataLoader.standard(maximumConcurrentRequests: 4))
        changePipeline(&pipeline)
        let service = ImageService(configuration: serviceConfiguration, pipeline: pipeline)
        var configuration = ImageServer.Configuration()
        configuration.listen = .tcp(host: "127.0.0.1", port: 0)
        configuration.workers = 2
        configuration.accessLog = accessLog
        let log = self.log
        configuration.logSink = { log.append($0) }
        change(&configuration)
        server = try ImageServer(configuration: configuration, service: service)
    }

    /// `/{signature}/{options}/plain/{origin URL of path}`.
    func signed(_ options: String, _ path: String = landscapePath) -> String {
        let rest = "/\(options)/plain/\(origin.url(path).absoluteString)"
        return "/\(policy.signature(for: rest)!)\(rest)"
    }

    /// Stops the server (the drain waits for every response to be sent and logged); nginx
    /// stops when the harness goes.
    func stop() async {
        await server.stop(drainTimeout: 5)
    }
}
