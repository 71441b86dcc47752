import Foundation
import Testing
import PictorTestSupport

/// A warm `prefetch --resize N --out DIR` needs no new pixels: the kept thumbnail, encoded as the
/// output is (same encoder, format and quality), is written as it is.
@Suite(.serialized, .enabled(if: BinaryRunner.isAvailable && NginxServer.isAvailable
                               && FileManager.default.fileExists(atPath: sharedCorpus.appendingPathComponent("MANIFEST.tsv").path),
                             "needs the built pictor binary, nginx and ../shared/corpus"))
struct WarmThumbnailTests {
    /// Corpus files of `format` that decode, by path.
    static func corpus(_ format: String, limit: Int) throws -> [String] {
        let manifest = try String(contentsOf: sharedCorpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        return manifest.split(separator: "\n").dropFirst().compactMap { line -> String? in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return fields.count > 3 && fields[2] == "ok" && fields[3] == format ? "/" + fields[0] : nil
        }.prefix(limit).map { $0 }
    }

    /// The files of `directory`, by name.
    static func files(_ directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
    }

    @Test func aWarmRunWritesTheColdRunsBytesAndANewQualityIsEncodedAgain() async throws {
        let nginx = try await offPool { try NginxServer.start(root: sharedCorpus) }
        defer { nginx.stop() }
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-warm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temp) }
        let paths = try Self.corpus("jpeg", limit: 6) + Self.corpus("png", limit: 3)
        try #require(paths.count == 9)
        let list = temp.appendingPathComponent("urls.txt")
        try paths.map { nginx.url($0).absoluteString }.joined(separator: "\n").write(to: list, atomically: false, encoding: .utf8)
        let cache = temp.appendingPathComponent("cache").path
        func run(_ out: String, _ extra: [String] = []) async throws -> BinaryRunner.Outcome {
            let outcome = try await offPool {
                try BinaryRunner.run(["prefetch", list.path, "--resize", "64", "--out", temp.appendingPathComponent(out).path,
                                      "--cache-dir", cache] + extra)
            }
            #expect(outcome.status == 0, "\(outcome.stderr)")
            return outcome
        }

        _ = try await run("cold")
        let warm = try await run("warm")
        #expect(warm.stdout.contains("disk \(paths.count), shared 0, network 0"), "\(warm.stdout)")
        let cold = try Self.files(temp.appendingPathComponent("cold"))
        let copied = try Self.files(temp.appendingPathComponent("warm"))
        #expect(cold.count == paths.count)
        #expect(copied == cold, "the warm run writes the kept thumbnails, byte for byte")

        // Another quality is not the kept thumbnail's: its JPEGs are encoded again, its PNGs
        // (lossless) are still the kept ones.
        _ = try await run("q60", ["--quality", "60"])
        let other = try Self.files(temp.appendingPathComponent("q60"))
        for (name, bytes) in other {
            if name.hasSuffix(".png") {
                #expect(bytes == cold[name], "\(name)")
            } else {
                #expect(bytes != cold[name] && bytes.count < (cold[name]?.count ?? 0), "\(name) at quality 60")
            }
        }
    }
}
