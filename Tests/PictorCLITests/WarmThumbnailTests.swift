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

    /// A thumbnail kept for other output settings (a quality-10 JPEG) is never the source of
    /// another run's output: that run makes its own from the original, as a cold run would;
    /// and a format fixed by `--name`'s extension is kept, so its warm run copies too.
    @Test func otherOutputSettingsMakeTheirOwnThumbnailFromTheOriginal() async throws {
        let nginx = try await offPool { try NginxServer.start(root: sharedCorpus) }
        defer { nginx.stop() }
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-warm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temp) }
        let paths = try Self.corpus("jpeg", limit: 3) + Self.corpus("png", limit: 3)
        try #require(paths.count == 6)
        let list = temp.appendingPathComponent("urls.txt")
        try paths.map { nginx.url($0).absoluteString }.joined(separator: "\n").write(to: list, atomically: false, encoding: .utf8)
        func run(_ out: String, cache: String, _ extra: [String] = []) async throws {
            let outcome = try await offPool {
                try BinaryRunner.run(["prefetch", list.path, "--resize", "64", "--out", temp.appendingPathComponent(out).path,
                                      "--cache-dir", temp.appendingPathComponent(cache).path, "-q"] + extra)
            }
            #expect(outcome.status == 0, "\(outcome.stderr)")
        }
        try await run("q10", cache: "shared-cache", ["--format", "jpeg", "--quality", "10"])
        try await run("after", cache: "shared-cache")
        try await run("fresh", cache: "fresh-cache")
        #expect(try Self.files(temp.appendingPathComponent("after")) == Self.files(temp.appendingPathComponent("fresh")),
                "the same bytes as a cold run: not made from the quality-10 thumbnail")

        try await run("webp1", cache: "shared-cache", ["--name", "{stem}.webp"])
        try await run("webp2", cache: "shared-cache", ["--name", "{stem}.webp"])
        let first = try Self.files(temp.appendingPathComponent("webp1")), second = try Self.files(temp.appendingPathComponent("webp2"))
        #expect(first.count == 6 && first.keys.allSatisfy { $0.hasSuffix(".webp") })
        #expect(second == first, "a format fixed by --name is the kept thumbnail's: copied")
    }
}
