import Foundation
import Pictor
import PictorTestSupport
import Testing

/// Incremental previews over a real connection (libcurl, the fetch stage, CJPEGShim's scanline
/// decoding, libpng's progressive reader): the server sends a baseline JPEG or a PNG in pieces and
/// waits after each one until the test has seen its preview, so the order is certain without
/// any timing.
@Suite(.timeLimit(.minutes(2)))
struct IncrementalPreviewIntegrationTests {
    static func texture(_ width: Int, _ height: Int) -> Image {
        var bytes = [UInt8]()
        for y in 0..<height {
            for x in 0..<width {
                let r = 128 + Int(90 * sin(Double(x) / 6) * cos(Double(y) / 8))
                bytes += [UInt8(clamping: r), UInt8(truncatingIfNeeded: x * 255 / width + (x ^ y) % 29),
                          UInt8((x / 6 + y / 6) % 2 == 0 ? 210 : 30)]
            }
        }
        return Image(width: width, height: height, layout: .rgb, pixels: Data(bytes))
    }

    /// A baseline JPEG, cut after its header and then in three parts of its entropy data.
    static func baselineJPEG() throws -> (Data, [Data]) {
        let data = try texture(320, 240).encoded(as: .jpeg, quality: 90)
        let bytes = [UInt8](data)
        let sos = try #require((2..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let length = data.count - sos
        return (data, cut(data, at: [sos + length / 4, sos + length / 2, sos + 3 * length / 4]))
    }

    /// A PNG with its rows filtered and compressed, cut in four.
    static func png() throws -> (Data, [Data]) {
        let data = try texture(300, 200).encoded(as: .png)
        return (data, cut(data, at: [data.count / 4, data.count / 2, 3 * data.count / 4]))
    }

    static func cut(_ data: Data, at cuts: [Int]) -> [Data] {
        var pieces: [Data] = [], start = 0
        for end in cuts + [data.count] {
            pieces.append(data.subdata(in: start..<end))
            start = end
        }
        return pieces
    }

    static func rows(_ image: Image, _ rows: Range<Int>) -> [UInt8] {
        let stride = image.width * image.layout.bands
        return [UInt8](image.pixels[(rows.lowerBound * stride)..<(rows.upperBound * stride)])
    }

    static func distance(_ x: [UInt8], _ y: [UInt8]) -> Double {
        guard x.count == y.count else { return .infinity }
        var sum = 0
        for i in 0..<x.count { sum += abs(Int(x[i]) - Int(y[i])) }
        return Double(sum) / Double(max(1, x.count))
    }

    func pipeline(incremental: Bool) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration.standard(diskCache: nil, imageCache: ImageCache(), logger: .disabled)
        // The server's pauses set the pace; no preview is held back for the interval here.
        configuration.previewInterval = .zero
        configuration.isIncrementalDecodingEnabled = incremental
        return ImagePipeline(configuration: configuration)
    }

    @Test(arguments: ["jpeg", "png"])
    func rowsSoFarArriveOverFillThenTheFinalAndNoneAfter(format: String) async throws {
        let (_, pieces) = format == "jpeg" ? try Self.baselineJPEG() : try Self.png()
        let go = DispatchSemaphore(value: 0)
        let server = try SteppedHTTPServer(pieces: pieces) { _ in _ = go.wait(timeout: .now() + 60) }
        defer { server.stop() }
        let pipeline = pipeline(incremental: false)
        let request = ImageRequest(url: server.url(path: "/i.\(format)"), options: [.incrementalPreviews])
        // Every piece but the last adds rows; the server waits for their preview.
        let (seen, final, after) = try await PreviewLockstep.collect(pipeline.imageTask(for: request), pieces: pieces.count, go: go)
        #expect(after == nil, "no preview after the final image")
        #expect(!final.isPreview && final.cacheLayer == .network)
        #expect(seen.count >= pieces.count - 1)
        #expect(seen.allSatisfy { $0.isPreview && $0.image.width == final.image.width && $0.image.height == final.image.height })
        let height = final.image.height
        for preview in seen.prefix(pieces.count - 1) {
            // The top rows are the final image's, the bottom ones mid-grey.
            #expect(Self.distance(Self.rows(preview.image, 0..<8), Self.rows(final.image, 0..<8)) < 1)
            #expect(Self.rows(preview.image, (height - 4)..<height).allSatisfy { $0 == 128 })
        }
        let grey = seen.map { $0.image.pixels.filter { $0 == 128 }.count }
        #expect(grey == grey.sorted(by: >), "more rows each time: \(grey)")
        #expect(pipeline.cachedImage(for: request)?.pixels == final.image.pixels, "no preview was cached")
    }

    @Test(arguments: ["jpeg", "png"])
    func withoutTheOptionABaselineJPEGOrAPNGHasNoPreviews(format: String) async throws {
        let (_, pieces) = format == "jpeg" ? try Self.baselineJPEG() : try Self.png()
        let server = try SteppedHTTPServer(pieces: pieces) { _ in }
        defer { server.stop() }
        let request = ImageRequest(url: server.url(path: "/i.\(format)"), options: [.progressivePreviews])
        let task = pipeline(incremental: false).imageTask(for: request)
        let previews = task.previews
        _ = try await task.response
        var iterator = previews.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }
}
