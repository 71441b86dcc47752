import Foundation
import Testing
import PictorTestSupport
import Pictor

private var corpusAvailable: Bool { FileManager.default.fileExists(atPath: sharedCorpus.appendingPathComponent("pngsuite").path) }

/// libvips (and the ~120 libraries it brings) is loaded only by a run that needs it: the
/// dynamic loader's own trace (`LD_DEBUG=libs`, glibc) tells which shared libraries a run of
/// the built binary opened.
@Suite(.serialized, .enabled(if: BinaryRunner.isAvailable && NginxServer.isAvailable && corpusAvailable,
                             "needs the built pictor binary, nginx and ../shared/corpus"))
struct LibraryLoadingTests {
    let temp: URL

    init() throws {
        temp = try makeTemporaryDirectory("libs")
    }

    /// Runs pictor with the loader's trace on; returns whether libvips was opened.
    func loadsLibvips(_ arguments: [String]) async throws -> Bool {
        let run = try await BinaryRunner.run(arguments, environment: ["LD_DEBUG": "libs"])
        #expect(run.status == 0, "\(arguments): \(run.stderr.suffix(2000))")
        #expect(run.stderr.contains("calling init:"), "the loader's trace is missing: \(run.stderr.prefix(500))")
        return run.stderr.contains("libvips.so")
    }

    @Test func onlyRunsThatNeedLibvipsLoadIt() async throws {
        let server = try NginxServer.start(root: sharedCorpus)
        defer { server.stop(); try? FileManager.default.removeItem(at: temp) }
        let cache = temp.appendingPathComponent("cache").path
        let jpeg = server.url("/exif-orientation/Portrait_6.jpg").absoluteString
        let webp = server.url("/webp/alpha_filter_1.webp").absoluteString
        let gif = server.url("/pillow/hopper.gif").absoluteString

        #expect(try await !loadsLibvips(["--version"]))
        #expect(try await !loadsLibvips(["prefetch", "--data-only", "--cache-dir", cache, jpeg, webp]))
        #expect(try await !loadsLibvips(["cache", "stats", "--cache-dir", cache]))
        // A plain JPEG is decoded, resized, oriented and written by libjpeg-turbo and Pictor.
        let jpegOut = temp.appendingPathComponent("thumbnail.jpg").path
        #expect(try await !loadsLibvips(["fetch", jpeg, "--resize", "64", "-o", jpegOut, "--cache-dir", cache]))
        #expect(ImageFormat.sniff(try Data(contentsOf: URL(fileURLWithPath: jpegOut))) == .jpeg)
        // So is a still WebP: decoded and resized by libwebp, and the resized image kept in the
        // disk cache as WebP, written by libwebp; a second run reads that variant back.
        let webpOut = temp.appendingPathComponent("from-webp.jpg").path
        let hopper = server.url("/pillow/hopper.webp").absoluteString
        for _ in 0..<2 {
            #expect(try await !loadsLibvips(["fetch", hopper, "--resize", "16", "-o", webpOut, "--cache-dir", cache]))
        }
        #expect(ImageFormat.sniff(try Data(contentsOf: URL(fileURLWithPath: webpOut))) == .jpeg)
        #expect(try await !loadsLibvips(["prefetch", "--resize", "32", "--cache-dir", cache, webp, hopper]))
        // So is a PNG: decoded and resized by libspng and Pictor, and the resized image kept in
        // the disk cache as PNG, written by libspng; a second run reads that variant back.
        let pngs = ["basn2c08", "basn6a08", "basn0g08"].map { server.url("/pngsuite/\($0).png").absoluteString }
        for _ in 0..<2 {
            #expect(try await !loadsLibvips(["prefetch", "--resize", "16", "--cache-dir", cache] + pngs))
        }
        // A GIF needs libvips: the check sees a load when there is one.
        #expect(try await loadsLibvips(["fetch", gif, "--resize", "16", "-o", temp.appendingPathComponent("thumbnail.png").path,
                                  "--cache-dir", cache]))
    }
}
