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

    /// nginx over the corpus, a folder, and a URL list of `paths`.
    struct Setup {
        let nginx: NginxServer
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-warm-\(UUID().uuidString)")
        let list: URL

        init(_ paths: [String]) async throws {
            nginx = try await offPool { try NginxServer.start(root: sharedCorpus, extraServerConfig: NginxServer.freshForAnHour) }
            try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
            list = temp.appendingPathComponent("urls.txt")
            try paths.map { nginx.url($0).absoluteString }.joined(separator: "\n").write(to: list, atomically: false, encoding: .utf8)
        }

        func stop() {
            nginx.stop()
            try? FileManager.default.removeItem(at: temp)
        }

        /// `prefetch --resize 64 --out <out> --cache-dir <cache>` with `extra`, which must work.
        @discardableResult
        func prefetch(_ out: String, cache: String, _ extra: [String] = []) async throws -> BinaryRunner.Outcome {
            let arguments = ["prefetch", list.path, "--resize", "64", "--out", temp.appendingPathComponent(out).path,
                             "--cache-dir", temp.appendingPathComponent(cache).path] + extra
            let outcome = try await offPool { try BinaryRunner.runBlocking(arguments) }
            #expect(outcome.status == 0, "\(outcome.stderr)")
            return outcome
        }

        func files(_ out: String) throws -> [String: Data] { try WarmThumbnailTests.files(temp.appendingPathComponent(out)) }
    }

    @Test func aWarmRunWritesTheColdRunsBytesAndANewQualityIsEncodedAgain() async throws {
        let paths = try Self.corpus("jpeg", limit: 6) + Self.corpus("png", limit: 3)
        try #require(paths.count == 9)
        let setup = try await Setup(paths)
        defer { setup.stop() }

        try await setup.prefetch("cold", cache: "cache")
        let warm = try await setup.prefetch("warm", cache: "cache")
        #expect(warm.stdout.contains("disk \(paths.count), shared 0, network 0"), "\(warm.stdout)")
        let cold = try setup.files("cold")
        #expect(cold.count == paths.count)
        #expect(try setup.files("warm") == cold, "the warm run writes the kept thumbnails, byte for byte")

        // Another quality is not the kept thumbnail's: its JPEGs are encoded again (from the
        // original), its PNGs (lossless, the same pixels) too.
        try await setup.prefetch("q60", cache: "cache", ["--quality", "60"])
        for (name, bytes) in try setup.files("q60") where !name.hasSuffix(".png") {
            #expect(bytes != cold[name] && bytes.count < (cold[name]?.count ?? 0), "\(name) at quality 60")
        }
    }

    /// A thumbnail kept for other output settings (a quality-10 JPEG) is never the source of
    /// another run's output: that run makes its own from the original, as a cold run would;
    /// and a format fixed by `--name`'s extension is kept, so its warm run copies too.
    @Test func otherOutputSettingsMakeTheirOwnThumbnailFromTheOriginal() async throws {
        let paths = try Self.corpus("jpeg", limit: 3) + Self.corpus("png", limit: 3)
        try #require(paths.count == 6)
        let setup = try await Setup(paths)
        defer { setup.stop() }
        try await setup.prefetch("q10", cache: "shared-cache", ["--format", "jpeg", "--quality", "10", "-q"])
        try await setup.prefetch("after", cache: "shared-cache", ["-q"])
        try await setup.prefetch("fresh", cache: "fresh-cache", ["-q"])
        #expect(try setup.files("after") == setup.files("fresh"), "the same bytes as a cold run: not made from the quality-10 thumbnail")

        try await setup.prefetch("webp1", cache: "shared-cache", ["--name", "{stem}.webp", "-q"])
        try await setup.prefetch("webp2", cache: "shared-cache", ["--name", "{stem}.webp", "-q"])
        let first = try setup.files("webp1")
        #expect(first.count == 6 && first.keys.allSatisfy { $0.hasSuffix(".webp") })
        #expect(try setup.files("webp2") == first, "a format fixed by --name is the kept thumbnail's: copied")
    }
}
