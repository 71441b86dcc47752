import Foundation
import Pictor
import PictorTestSupport
import Testing

/// `pictor fetch --previews DIR` against a server that pauses at each scan boundary of a
/// progressive JPEG until the preview of that scan is on disk (and the preview interval has
/// passed), so the previews written do not depend on timing.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: BinaryRunner.isAvailable, "needs the built pictor binary"))
struct PreviewsCLITests {
    static func progressiveJPEG() throws -> Data {
        let width = 320, height = 240
        var bytes = [UInt8]()
        for y in 0..<height {
            for x in 0..<width {
                bytes += [UInt8(truncatingIfNeeded: x * 3 + (x * y) % 17), UInt8(truncatingIfNeeded: y * 5 + (x ^ y) % 13),
                          UInt8((x / 5 + y / 5) % 2 == 0 ? 200 : 50)]
            }
        }
        return try #require(Image(width: width, height: height, layout: .rgb, pixels: Data(bytes)).progressiveJPEG(quality: 90))
    }

    /// The file cut just after each scan's following marker (a scan is complete for libjpeg
    /// once the next marker shows).
    static func scanPieces(_ data: Data) -> [Data] {
        let bytes = [UInt8](data)
        let starts = (2..<(bytes.count - 1)).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }
        var pieces: [Data] = [], start = 0
        for cut in starts.dropFirst().map({ $0 + 2 }) + [bytes.count] {
            pieces.append(data.subdata(in: start..<cut))
            start = cut
        }
        return pieces
    }

    /// A preview's number as its file name gives it: three digits, so that `ls` sorts them.
    static func number(_ n: Int) -> String { String(format: "%03d", n) }

    @Test func theFinalImageIsWrittenWithoutWaitingForQueuedPreviews() async throws {
        let root = try makeTemporaryDirectory("previews-json")
        defer { try? FileManager.default.removeItem(at: root) }
        let previews = root.appendingPathComponent("steps")
        let output = root.appendingPathComponent("rows.png").path
        // A PNG in many pieces, sent without waiting for any preview: previews come faster than
        // full-size PNGs are written, however fast the machine is or is not.
        let (data, _) = try Self.pngPieces()
        let size = data.count / 24 + 1
        let pieces = stride(from: 0, to: data.count, by: size).map { data.subdata(in: $0..<min($0 + size, data.count)) }
        let server = try SteppedHTTPServer(pieces: pieces) { _ in }
        defer { server.stop() }
        let run = try await BinaryRunner.run([
            "fetch", server.url(path: "/rows.png").absoluteString, "-o", output, "--previews", previews.path, "--no-cache", "--json",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(run.stdout.split(separator: "\n").first { $0.contains(#""type":"image""#) })
        let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let made = try #require(record["previews"] as? Int), written = try #require(record["previews_written"] as? Int)
        #expect(written <= made, "\(line)")
        // Numbered in the order written, without gaps, so a listing sorts them in order.
        let names = try FileManager.default.contentsOfDirectory(atPath: previews.path).sorted()
        #expect(names == (0..<written).map { "rows-preview-\(Self.number($0 + 1)).png" }, "\(names)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)).starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    /// A stepped server's pause after a piece: until the preview of the bytes just sent is
    /// written at `path` (bounded), then past the default 100 ms interval, so that the next
    /// piece makes its own preview. Runs on the server's thread, never on the test's.
    static func waitForPreview(_ path: String) {
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: path), Date() < deadline { usleep(10_000) }
        usleep(150_000)
    }

    @Test func fetchWritesNumberedPreviewsBeforeTheFinalImage() async throws {
        let root = try makeTemporaryDirectory("previews")
        defer { try? FileManager.default.removeItem(at: root) }
        let previews = root.appendingPathComponent("steps")
        let output = root.appendingPathComponent("big.png").path
        let pieces = Self.scanPieces(try Self.progressiveJPEG())
        let server = try SteppedHTTPServer(pieces: pieces) { sent in
            Self.waitForPreview(previews.appendingPathComponent("big-preview-\(Self.number(sent)).png").path)
        }
        defer { server.stop() }
        let run = try await BinaryRunner.run([
            "fetch", server.url(path: "/big.jpg").absoluteString, "-o", output, "--previews", previews.path, "--no-cache",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(" written)"), "\(run.stdout)")
        let names = try FileManager.default.contentsOfDirectory(atPath: previews.path).sorted()
        let expected = (1..<pieces.count).map { "big-preview-\(Self.number($0)).png" }
        #expect(Set(expected).isSubset(of: Set(names)), "\(names)")
        #expect(names.count >= 2 && names.count <= pieces.count, "\(names)")
        for name in names {
            let png = try Data(contentsOf: previews.appendingPathComponent(name))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(name) is a PNG")
        }
        // The final image goes where it always goes, whole.
        let final = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(final.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(server.requestCount == 1)
    }

    /// A PNG (rows filtered and compressed) cut in four.
    static func pngPieces() throws -> (Data, [Data]) {
        let width = 240, height = 160
        var bytes = [UInt8]()
        for y in 0..<height {
            for x in 0..<width {
                bytes += [UInt8(truncatingIfNeeded: x * 3 + (x * y) % 17), UInt8(truncatingIfNeeded: y * 5 + (x ^ y) % 13),
                          UInt8((x / 5 + y / 5) % 2 == 0 ? 200 : 50)]
            }
        }
        let data = try Image(width: width, height: height, layout: .rgb, pixels: Data(bytes)).encoded(as: .png)
        let cuts = [data.count / 4, data.count / 2, 3 * data.count / 4, data.count]
        var pieces: [Data] = [], start = 0
        for cut in cuts {
            pieces.append(data.subdata(in: start..<cut))
            start = cut
        }
        return (data, pieces)
    }

    @Test func fetchWritesTheRowsSoFarOfAPNG() async throws {
        let root = try makeTemporaryDirectory("previews-png")
        defer { try? FileManager.default.removeItem(at: root) }
        let previews = root.appendingPathComponent("steps")
        let output = root.appendingPathComponent("rows.png").path
        let (_, pieces) = try Self.pngPieces()
        let server = try SteppedHTTPServer(pieces: pieces) { sent in
            Self.waitForPreview(previews.appendingPathComponent("rows-preview-\(Self.number(sent)).png").path)
        }
        defer { server.stop() }
        let run = try await BinaryRunner.run([
            "fetch", server.url(path: "/rows.png").absoluteString, "-o", output, "--previews", previews.path, "--no-cache",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: previews.path).sorted()
        let expected = (1..<pieces.count).map { "rows-preview-\(Self.number($0)).png" }
        #expect(Set(expected).isSubset(of: Set(names)), "\(names)")
        let final = try ImageDecoderRegistry.vips.decode(try Data(contentsOf: URL(fileURLWithPath: output)), options: ImageDecodingOptions())
        let first = try ImageDecoderRegistry.vips.decode(
            try Data(contentsOf: previews.appendingPathComponent("rows-preview-001.png")), options: ImageDecodingOptions())
        #expect(first.width == final.width && first.height == final.height)
        let stride = final.width * final.layout.bands
        #expect(first.pixels.prefix(stride * 4) == final.pixels.prefix(stride * 4), "the top rows are the final image's")
        #expect(first.pixels.suffix(stride * 4).allSatisfy { $0 == 128 }, "the rows not received are mid-grey")
    }

    @Test func previewsMustNameADirectory() async throws {
        let root = try makeTemporaryDirectory("previews-file")
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("f")
        try Data("x".utf8).write(to: file)
        let (code, console) = await runPictor(["fetch", "data:image/png;base64,AA==", "--previews", file.path, "--no-cache"])
        #expect(code == 64, "\(console.errors)")
        #expect(console.errors.contains("'--previews \(file.path)' is a file"))
    }
}
