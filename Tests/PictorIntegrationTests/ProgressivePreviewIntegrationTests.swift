import Foundation
import Pictor
import PictorTestSupport
import Testing

/// Previews of a progressive JPEG over a real connection: libcurl, the fetch stage, libjpeg's
/// buffered-image mode. The server pauses at every scan boundary until the test has seen that
/// scan's preview, so the order is certain without any timing.
@Suite(.timeLimit(.minutes(2)))
struct ProgressivePreviewIntegrationTests {
    /// A textured image, so that every scan adds detail.
    static func progressiveJPEG(width: Int, height: Int) throws -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let r = 128 + Int(100 * sin(Double(x) / 5) * cos(Double(y) / 9))
                bytes += [UInt8(clamping: r), UInt8(truncatingIfNeeded: x * 255 / width + (x ^ y) % 31),
                          UInt8((x / 6 + y / 6) % 2 == 0 ? 210 : 30)]
            }
        }
        let image = Image(width: width, height: height, layout: .rgb, pixels: Data(bytes))
        return try #require(image.progressiveJPEG(quality: 90))
    }

    /// The file cut just after each scan's following marker: the pieces a server pausing at
    /// scan boundaries sends (libjpeg knows a scan is complete once it sees the next marker).
    static func scanPieces(_ data: Data) -> [Data] {
        let bytes = [UInt8](data)
        let starts = (2..<(bytes.count - 1)).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }
        var cuts = starts.dropFirst().map { $0 + 2 }
        cuts.append(bytes.count)
        var pieces: [Data] = [], start = 0
        for cut in cuts {
            pieces.append(data.subdata(in: start..<cut))
            start = cut
        }
        return pieces
    }

    static func distance(_ a: Image, _ b: Image) -> Double {
        let x = [UInt8](a.pixels), y = [UInt8](b.pixels)
        guard x.count == y.count else { return .infinity }
        var sum = 0
        for i in 0..<x.count { sum += abs(Int(x[i]) - Int(y[i])) }
        return Double(sum) / Double(max(1, x.count))
    }

    @Test func onePreviewPerScanMoreDetailedEachTimeThenTheFinalAndNoneAfter() async throws {
        let file = try Self.progressiveJPEG(width: 480, height: 320)
        let pieces = Self.scanPieces(file)
        #expect(pieces.count >= 6)
        let go = DispatchSemaphore(value: 0)
        let server = try SteppedHTTPServer(pieces: pieces) { _ in _ = go.wait(timeout: .now() + 60) }
        defer { server.stop() }
        var configuration = ImagePipeline.Configuration.standard(diskCache: nil, imageCache: ImageCache(), logger: .disabled)
        // The server's pauses set the pace; no preview is held back for the interval here.
        configuration.previewInterval = .zero
        let pipeline = ImagePipeline(configuration: configuration)
        let request = ImageRequest(url: server.url(path: "/p.jpg"), options: [.progressivePreviews])
        // Every piece but the last completes one more scan; the server waits for its preview.
        let (seen, final, after) = try await PreviewLockstep.collect(pipeline.imageTask(for: request), pieces: pieces.count, go: go)
        #expect(after == nil, "no preview after the final image")
        #expect(!final.isPreview && final.cacheLayer == .network)
        #expect(seen.count >= pieces.count - 1 && seen.count >= 2)
        #expect(seen.allSatisfy { $0.isPreview && $0.image.width == final.image.width && $0.image.height == final.image.height })
        let distances = seen.map { Self.distance($0.image, final.image) }
        #expect(distances.first! > distances.last! * 2, "\(distances)")
        // A refinement scan of one colour can move a preview a little away before the next one
        // brings it closer: no preview is further than the first, and the last is the closest.
        #expect(distances.dropFirst().allSatisfy { $0 <= distances[0] }, "\(distances)")
        #expect(distances.last! <= distances.min()! + 0.5, "\(distances)")
        // Nothing of a preview was cached: the memory cache holds the final image.
        #expect(pipeline.cachedImage(for: request)?.pixels == final.image.pixels)
    }
}
