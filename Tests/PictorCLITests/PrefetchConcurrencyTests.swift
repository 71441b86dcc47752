import Foundation
import PictorTestSupport
import Testing
@testable import PictorCLI

/// `--concurrency N` bounds the downloads on the wire, while as many more images wait queued in
/// the loader and libcurl.
@Suite(.enabled(if: FaultServer.isAvailable), .timeLimit(.minutes(5)))
struct PrefetchConcurrencyTests {
    @Test func downloadsAtOnceNeverExceedTheConcurrencyWhileMoreWaitQueued() async throws {
        let server = try await offPool { try FaultServer() }
        defer { server.stop() }
        let key = UUID().uuidString
        let urls = (0..<10).map { server.url("/delay?ms=150&k=\(key)&i=\($0)").absoluteString }
        let (code, console) = await runPictor(["prefetch"] + urls + ["--concurrency", "2", "--no-cache", "--data-only", "-q"])
        #expect(code == 0, "\(console.errors)")
        let counted = try server.connections(prefix: "/delay?ms=150&k=\(key)")
        #expect(counted.requests == 10)
        // Two connections in all: never a third download at once, though four images were in
        // flight.
        #expect(counted.connections <= 2, "\(counted)")
        #expect(PipelineStack.imagesInFlight(downloads: 2, decodes: false) == 4)
        #expect(PipelineStack.imagesInFlight(downloads: 2, decodes: true) == 2, "an image waiting for a decoder holds its original")
    }
}
