import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Pictor
import PictorTestSupport
import Testing
@testable import PictorCLI

/// `--concurrency N` bounds the downloads on the wire, while as many more images wait queued in
/// the loader's priority queue: that queue is the one limit that binds, never libcurl's caps.
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

    @Test func theLoadersQueueIsTheLimitThatBinds() async throws {
        let server = try await offPool { try FaultServer() }
        defer { server.stop() }
        let key = UUID().uuidString
        let loader = PipelineStack.dataLoader(downloads: 2)
        #expect(loader.configuration.maximumConcurrentRequests == 2)
        let urls = (0..<6).map { server.url("/delay?ms=200&k=\(key)&i=\($0)") }
        let loads = urls.map { url in Task { try await loader.loadData(for: URLRequest(url: url), options: DataLoadOptions()) } }
        // The requests past the second wait in the loader, not in libcurl.
        let monitor = Task {
            var maximum = (running: 0, waiting: 0)
            while !Task.isCancelled {
                maximum = (max(maximum.running, loader.runningCount), max(maximum.waiting, loader.waitingCount))
                try? await Task.sleep(for: .milliseconds(2))
            }
            return maximum
        }
        for load in loads { _ = await load.result }
        monitor.cancel()
        let maximum = await monitor.value
        #expect(maximum.running == 2, "never more than two downloads")
        #expect(maximum.waiting >= 3, "the others waited in the loader's queue")
        #expect(loader.runningCount == 0 && loader.waitingCount == 0)
        let counted = try server.connections(prefix: "/delay?ms=200&k=\(key)")
        #expect(counted.requests == 6)
        #expect(counted.connections <= 2, "\(counted)")
    }
}
