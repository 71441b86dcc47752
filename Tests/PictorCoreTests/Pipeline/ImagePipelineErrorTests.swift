import Foundation
@testable import PictorCore
import PictorTestSupport
import Testing

@Suite(.timeLimit(.minutes(5)))
struct ImagePipelineErrorTests {
    @Test func aLoadingErrorIsWrappedWithItsCause() async throws {
        let h = Harness()
        let url = URL(string: "https://example.test/missing.img")!
        h.network.stub(url, error: .statusCode(500))

        let error = await #expect(throws: ImagePipeline.Error.self) { try await h.pipeline.image(for: ImageRequest(url: url)) }

        #expect(error?.kind == .loading)
        #expect(error?.dataLoadingError == .statusCode(500))
        #expect(error?.description == "loading failed: HTTP status 500")
        #expect(h.memory.count == 0 && h.disk.keys.isEmpty)
    }

    @Test func aDecodingErrorIsWrappedWithItsCause() async throws {
        let h = Harness()
        let url = h.stub()
        h.decoder.failAll(with: .unknownFormat)

        let error = await #expect(throws: ImagePipeline.Error.self) { try await h.pipeline.image(for: ImageRequest(url: url)) }

        #expect(error?.decodingError == .unknownFormat)
    }

    @Test func theDecompressionBombLimitApplies() async throws {
        let h = Harness { $0.decodingOptions.maximumPixelCount = 100 }
        let url = h.stub(width: 20, height: 20)

        let error = await #expect(throws: ImagePipeline.Error.self) { try await h.pipeline.image(for: ImageRequest(url: url)) }

        #expect(error?.decodingError == .tooManyPixels(width: 20, height: 20, limit: 100))
    }

    @Test func aProcessingErrorNamesTheProcessor() async throws {
        let h = Harness()
        let url = h.stub()

        let error = await #expect(throws: ImagePipeline.Error.self) {
            try await h.pipeline.image(for: ImageRequest(url: url, processors: [h.tag(1), h.tag(2, fails: true)]))
        }

        guard let error, let processor = error.processor, let underlying = error.underlying else {
            Issue.record("expected processingFailed, got \(String(describing: error))")
            return
        }
        #expect(processor == "tag(2,fail)")
        #expect(underlying is ImageProcessingError)
        #expect(h.memory.count == 0)
        #expect(h.pipeline.statistics.errors == [.processing: 1])
    }

    @Test func withoutARendererBuiltInProcessingFailsClearly() async throws {
        let h = Harness { $0.renderer = UnavailableImageRenderer() }
        let url = h.stub(width: 100, height: 100)
        let resize = TestResizeProcessor(width: 10)

        // Folded into the decode, the resize needs no renderer…
        _ = try await h.pipeline.image(for: ImageRequest(url: url, processors: [resize]))
        // …but after another processor it does.
        let error = await #expect(throws: ImagePipeline.Error.self) {
            try await h.pipeline.image(for: ImageRequest(url: url, processors: [h.tag(1), resize]))
        }
        guard let error, error.kind == .processing, let underlying = error.underlying else { Issue.record("wrong error"); return }
        #expect(underlying as? ImageProcessingError == .noRenderer)
    }

    @Test func errorsAreSharedByEveryCallerAndCountedOnce() async throws {
        let h = Harness()
        let url = URL(string: "https://example.test/x.img")!
        h.network.stub(url, error: .notAnImage(contentType: "text/html", signature: ByteSignature(Data("<html>".utf8))))
        h.network.gate.close()

        let tasks = (0..<5).map { _ in h.pipeline.imageTask(for: ImageRequest(url: url)) }
        await h.waitForCallers(5)
        h.network.gate.open()
        for task in tasks { await #expect(throws: ImagePipeline.Error.self) { try await task.response } }

        #expect(h.network.loadCount == 1)
        #expect(h.pipeline.statistics.failed == 5)
        #expect(tasks.allSatisfy { $0.state == .failed })
    }

    @Test func logsNeverContainURLsUnlessAllowed() async throws {
        let lines = OrderLog()
        let secretURL = "https://example.test/secret-name.img"
        for reveals in [false, true] {
            let h = Harness {
                $0.logger = PictorLog(level: .debug, revealsURLs: reveals) { _, message in lines.append(message) }
            }
            let url = URL(string: secretURL)!
            h.network.stub(url, data: Data("PTST".utf8))
            _ = try? await h.pipeline.image(for: ImageRequest(url: url))
            let leaked = lines.items.contains { $0.contains("secret-name") }
            #expect(leaked == reveals)
        }
    }
}
