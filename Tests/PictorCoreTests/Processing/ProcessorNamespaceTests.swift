import Foundation
@testable import PictorCore
import PictorTestSupport
import Testing

/// A user's processor never shares a cache entry or a job with a built-in one, whatever
/// identifier it picks: built-in identifiers live in a namespace of their own.
@Suite(.timeLimit(.minutes(5)))
struct ProcessorNamespaceTests {
    /// A user's processor that names itself like a built-in and tags its output.
    struct Impostor: ImageProcessing {
        let identifier: String
        let tag: UInt8
        let log: ProcessorLog
        func process(_ image: Image, context: ImageProcessingContext) throws -> Image {
            try TaggingProcessor(tag: tag, log: log).process(image, context: context)
        }
    }

    @Test func aUserProcessorNamedGrayscaleDoesNotShareTheBuiltInsEntries() async throws {
        let h = Harness(policy: .both)
        let url = h.stub()
        let builtIn = try await h.pipeline.image(for: ImageRequest(url: url, processors: [.grayscale]))
        let impostor = Impostor(identifier: "grayscale", tag: 7, log: h.processors)
        let user = try await h.pipeline.image(for: ImageRequest(url: url, processors: [impostor]))
        #expect(h.processors.count("tag(7)") == 1, "the user's processor ran")
        #expect(user.image.frames[0].pixels.first == 7)
        #expect(user.cacheLayer != .memory)
        #expect(builtIn.image != user.image)
        // Two processed variants on disk, besides the original.
        #expect(h.disk.keys.count == 3, "\(h.disk.keys)")
    }

    @Test func theyDoNotShareAJobEither() async throws {
        let h = Harness()
        let url = h.stub()
        h.network.gate.close()
        let impostor = Impostor(identifier: "grayscale", tag: 9, log: h.processors)
        let builtIn = h.pipeline.imageTask(for: ImageRequest(url: url, processors: [.grayscale]))
        let user = h.pipeline.imageTask(for: ImageRequest(url: url, processors: [impostor]))
        await h.waitForCallers(2)
        h.network.gate.open()
        let userImage = try await user.image
        _ = try await builtIn.image
        #expect(userImage.frames[0].pixels.first == 9)
        #expect(h.processors.count("tag(9)") == 1)
    }

    @Test(arguments: ["grayscale", "pictor.grayscale", "user:grayscale", "17:pictor.grayscale", "custom(1:x)", "pictor.custom(1:x)"])
    func noUserIdentifierProducesABuiltInsKey(_ text: String) {
        let log = ProcessorLog()
        let user = ImageProcessors.cacheIdentifier(of: Impostor(identifier: text, tag: 1, log: log))
        let builtIns: [any ImageProcessing] = [
            .grayscale, .circle, .resize(width: 8), .custom(identifier: "x") { image, _ in image },
            .composition([.grayscale]),
        ]
        for builtIn in builtIns {
            #expect(ImageProcessors.cacheIdentifier(of: builtIn) != user)
            #expect(ImageProcessors.identifier(of: [builtIn]) != ImageProcessors.identifier(of: [Impostor(identifier: text, tag: 1, log: log)]))
        }
        #expect(user == "user:" + text)
        #expect(ImageProcessors.cacheIdentifier(of: ImageProcessors.Grayscale()) == "pictor.grayscale")
    }

    @Test func customCompilesOnTheNamespace() throws {
        let sepia = ImageProcessors.custom(identifier: "sepia") { image, _ in image }
        #expect(sepia.identifier == "custom(5:sepia)")
        #expect(ImageProcessors.cacheIdentifier(of: sepia) == "pictor.custom(5:sepia)")
        let request = ImageRequest(url: URL(string: "https://example.test/a")!, processors: [
            .resize(width: 64), ImageProcessors.custom(identifier: "sepia") { image, _ in image },
        ])
        #expect(request.processors.count == 2)
    }
}
