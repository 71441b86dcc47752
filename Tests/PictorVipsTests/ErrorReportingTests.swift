import Foundation
import PictorCore
@testable import PictorVips
import PictorTestSupport
import Testing

/// Errors say what was seen, the same way every time, and in the stage that caused them.
@Suite("Errors say what was seen")
struct ErrorReportingTests {
    @Test func libvipsTextIsTheSameFromRunToRun() {
        let raw = "VipsForeignLoadPngBuffer: 0x55d1c2a3b4c0 is not a known file format\nvips__file_open_write: unable to open file \"/tmp/vips-0-1234567.v\" for writing\nsame\nsame"
        let stable = VipsError.stableText(raw)
        #expect(stable == "VipsForeignLoadPngBuffer: 0x… is not a known file format; vips__file_open_write: unable to open file \"<temporary file>\" for writing; same")
        #expect(VipsError.stableText(raw.replacingOccurrences(of: "55d1c2a3b4c0", with: "7f00aa11")
            .replacingOccurrences(of: "0-1234567", with: "3-99")) == stable)
    }

    @Test func aRendererFailureReportsItsOwnReasonEveryTime() throws {
        guard Corpus.isAvailable else { return }
        // This decode succeeds with libjpeg warnings, which libvips leaves in its error buffer.
        _ = try ImageDecoderRegistry.vips.decode(try Corpus.data("pillow/junk_jpeg_header.jpg"), options: .init())
        let image = TestImages.solid(width: 8, height: 8, layout: .rgb, [1, 2, 3])
        var messages: [String] = []
        for _ in 0..<2 {
            do {
                _ = try VipsRenderer().gaussianBlur(image, sigma: 1e7)
                Issue.record("a blur of sigma 10^7 must fail")
            } catch {
                messages.append(String(describing: error))
            }
        }
        #expect(messages.count == 2 && messages[0] == messages[1], "\(messages)")
        #expect(!messages.contains { $0.contains("VipsJpeg") || $0.contains("JPEG") }, "\(messages)")
    }

    @Test func aProcessorsInvalidArgumentIsAProcessingError() async throws {
        let network = MockDataLoader()
        let url = URL(string: "https://example.test/a.png")!
        network.stub(url, data: try VipsEncoder().encode(TestImages.gradient(width: 20, height: 10), as: .png, quality: 100))
        let pipeline = ImagePipeline(configuration: .init(dataLoader: network, decoder: ImageDecoderRegistry.vips, renderer: VipsRenderer()))
        for processor in [ImageProcessors.Resize(width: 0), .resize(width: 10, height: -1)] {
            let error = await #expect(throws: ImagePipeline.Error.self) {
                try await pipeline.image(for: ImageRequest(url: url, processors: [processor]))
            }
            guard let error, error.kind == .processing, let underlying = error.underlying else {
                Issue.record("expected a processing error, got \(String(describing: error))")
                continue
            }
            guard (underlying as? ImageProcessingError)?.kind == .invalidParameter else {
                Issue.record("expected invalidParameter, got \(underlying)")
                continue
            }
        }
    }
}
