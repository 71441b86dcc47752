import Foundation
import Testing
import Pictor
import PictorTestSupport

private var corpusAvailable: Bool { FileManager.default.fileExists(atPath: sharedCorpus.appendingPathComponent("exif-orientation").path) }

/// The built `pictor` binary against nginx on loopback serving the sharedCorpus.
@Suite(.serialized, .enabled(if: BinaryRunner.isAvailable && NginxServer.isAvailable && corpusAvailable,
                             "needs the built pictor binary, nginx and ../shared/corpus"))
struct PictorBinaryTests {
    let temp: URL

    init() throws {
        temp = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-cli-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
    }

    var cacheDir: String { temp.appendingPathComponent("cache").path }

    func orientationURLs(_ server: NginxServer) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(atPath: sharedCorpus.appendingPathComponent("exif-orientation").path)
            .filter { $0.hasSuffix(".jpg") }.sorted().map { server.url("/exif-orientation/\($0)") }
    }

    @Test func fetchWritesCorrectlyOrientedThumbnails() async throws {
        let server = try NginxServer.start(root: sharedCorpus, extraServerConfig: NginxServer.freshForAnHour)
        defer { server.stop(); try? FileManager.default.removeItem(at: temp) }
        let urls = try orientationURLs(server)
        let out = temp.appendingPathComponent("thumbs").path
        let run = try await BinaryRunner.run(["fetch"] + urls.map(\.absoluteString) + ["--resize", "256", "-o", out, "--format", "png", "--cache-dir", cacheDir])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == urls.count)
        #expect(lines.allSatisfy { $0.contains("  network  ") })

        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(files.count == urls.count)
        let decoder = ImageDecoderRegistry.vips
        for file in files {
            let data = try Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent(file))
            let image = try decoder.decode(data, options: ImageDecodingOptions())
            #expect(max(image.width, image.height) == 256, "\(file)")
            if file.hasPrefix("Landscape") { #expect(image.width > image.height, "\(file) is \(image.width)×\(image.height)") }
            if file.hasPrefix("Portrait") { #expect(image.height > image.width, "\(file) is \(image.width)×\(image.height)") }
        }

        // The same fetch again in a new process: every image from the disk cache.
        let again = try await BinaryRunner.run(["fetch"] + urls.map(\.absoluteString) + ["--resize", "256", "--cache-dir", cacheDir])
        #expect(again.status == 0)
        #expect(again.stdout.split(separator: "\n").allSatisfy { $0.contains("  disk  ") }, "\(again.stdout)")
    }

    /// An output file is replaced only by a whole one. A write that fails part-way (here past a
    /// file-size limit, as on a full disk) leaves the file that was there as it was, and no
    /// partial or temporary file behind, for `-o FILE` and for a directory's default names.
    @Test func aFailedWriteKeepsTheExistingOutputAndLeavesNoPartialFile() async throws {
        defer { try? FileManager.default.removeItem(at: temp) }
        let source = sharedCorpus.appendingPathComponent("exif-orientation/Landscape_1.jpg").path
        let out = temp.appendingPathComponent("out", isDirectory: true)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let keep = out.appendingPathComponent("keep.png")
        let original = Data("a file that was there before".utf8)
        try original.write(to: keep)
        // At most 16 KiB per file, with SIGXFSZ ignored: a write past it fails with EFBIG.
        func limited(_ arguments: [String]) async throws -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "trap '' XFSZ; ulimit -f 16; exec \"$0\" \"$@\"", BinaryRunner.executable!.path] + arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            return try await offPool { LoopbackHTTP.waitForExit(process) }
        }
        #expect(try await limited(["fetch", source, "--no-cache", "-o", keep.path]) == 1)
        #expect(try Data(contentsOf: keep) == original)
        #expect(try await limited(["fetch", source, "--no-cache", "--format", "png", "-o", out.path + "/"]) == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["keep.png"])
        // Without the limit, the same command replaces the file with the image.
        let run = try await BinaryRunner.run(["fetch", source, "--no-cache", "-o", keep.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Data(contentsOf: keep).starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["keep.png"])
    }

    @Test func secondPrefetchIsAllCacheHits() async throws {
        let server = try NginxServer.start(root: sharedCorpus, extraServerConfig: NginxServer.freshForAnHour)
        defer { server.stop(); try? FileManager.default.removeItem(at: temp) }
        let list = temp.appendingPathComponent("urls.txt")
        try (["# the EXIF orientation photos"] + orientationURLs(server).map(\.absoluteString)).joined(separator: "\n")
            .write(to: list, atomically: false, encoding: .utf8)
        let cold = try await BinaryRunner.run(["prefetch", list.path, "--resize", "128", "--cache-dir", cacheDir,
                                         "--report", temp.appendingPathComponent("cold.tsv").path])
        #expect(cold.status == 0, "\(cold.stderr)")
        #expect(cold.stdout.contains("18 (18 ok, 0 failed)"), "\(cold.stdout)")
        #expect(cold.stdout.contains("network 18"), "\(cold.stdout)")
        let requestsAfterCold = try server.loggedRequests().count

        let warm = try await BinaryRunner.run(["prefetch", list.path, "--resize", "128", "--cache-dir", cacheDir,
                                         "--report", temp.appendingPathComponent("warm.tsv").path])
        #expect(warm.status == 0, "\(warm.stderr)")
        #expect(warm.stdout.contains("network 0"), "\(warm.stdout)")
        #expect(warm.stdout.contains("disk 18"), "\(warm.stdout)")
        #expect(try server.loggedRequests().count == requestsAfterCold, "the warm run reached the server")
        // The thumbnails were kept beside the originals: a warm run at this size decodes nothing.
        let stats = try await BinaryRunner.run(["cache", "stats", "--cache-dir", cacheDir])
        #expect(stats.stdout.contains("entries:     36"), "\(stats.stdout)")
        let report = try String(contentsOf: temp.appendingPathComponent("warm.tsv"), encoding: .utf8)
        #expect(report.split(separator: "\n").dropFirst().allSatisfy { $0.split(separator: "\t")[2] == "disk" })
    }

    @Test func aWarmRunWritesWhatTheColdRunWrote() async throws {
        // Given PNG, JPEG, animated WebP and animated GIF originals
        let server = try NginxServer.start(root: sharedCorpus, extraServerConfig: NginxServer.freshForAnHour)
        defer { server.stop(); try? FileManager.default.removeItem(at: temp) }
        let paths = ["/libjpeg-turbo/testorig.png", "/exif-orientation/Landscape_1.jpg", "/pillow/iss634.webp", "/pillow/chi.gif"]
        let urls = paths.map { server.url($0).absoluteString }
        func run(_ out: String) async throws -> [String: Data] {
            let dir = temp.appendingPathComponent(out).path
            let result = try await BinaryRunner.run(["fetch"] + urls + ["--resize", "64", "-o", dir, "--cache-dir", cacheDir])
            #expect(result.status == 0, "\(result.stderr)")
            var files: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
                files[name] = try Data(contentsOf: URL(fileURLWithPath: dir).appendingPathComponent(name))
            }
            return files
        }
        // When they are resized cold, then warm from the kept thumbnails
        let cold = try await run("cold"), warm = try await run("warm")
        // Then the warm run writes the same files in the same formats, animations whole
        #expect(Set(warm.keys) == Set(cold.keys), "cold \(cold.keys.sorted()), warm \(warm.keys.sorted())")
        let decoder = ImageDecoderRegistry.vips
        var options = ImageDecodingOptions()
        options.allFrames = true
        for (name, data) in cold {
            guard let again = warm[name] else { continue }
            let a = try decoder.decode(data, options: options), b = try decoder.decode(again, options: options)
            #expect(a.width == b.width && a.height == b.height && a.frames.count == b.frames.count, "\(name)")
            if name.hasSuffix(".png") { #expect(a.frames[0].pixels == b.frames[0].pixels, "\(name): a lossless original stays lossless") }
        }
        #expect(cold.keys.contains { $0.hasSuffix(".gif") } && cold.keys.contains { $0.hasSuffix(".webp") })
    }

    @Test func exitCodes() async throws {
        let server = try NginxServer.start(root: sharedCorpus, extraServerConfig: NginxServer.freshForAnHour)
        defer { server.stop(); try? FileManager.default.removeItem(at: temp) }
        let usage = try await BinaryRunner.run(["fetch", "--bogus", server.url("/x.jpg").absoluteString])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("'--bogus'"))
        #expect(try await BinaryRunner.run(["frobnicate"]).status == 64)
        #expect(try await BinaryRunner.run(["fetch", "--resize", "0", "http://127.0.0.1/"]).status == 64)

        let missing = try await BinaryRunner.run(["fetch", server.url("/no-such-image.jpg").absoluteString, "--cache-dir", cacheDir])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("404"), "\(missing.stderr)")

        let text = try await BinaryRunner.run(["fetch", server.url("/README.md").absoluteString, "--cache-dir", cacheDir])
        #expect(text.status == 1, "a text file is not an image")

        // A cache that cannot be opened is refused with the reason, before anything is loaded.
        let file = temp.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: file)
        let unusable = try await BinaryRunner.run(["prefetch", server.url("/exif-orientation/Landscape_1.jpg").absoluteString,
                                            "--cache-dir", file.path + "/cache"])
        #expect(unusable.status == 73, "\(unusable.stderr)")
        #expect(unusable.stderr.contains("--no-cache"), "\(unusable.stderr)")
        #expect(try server.loggedRequests().filter { $0.uri.hasPrefix("/exif") }.isEmpty, "nothing was loaded")
        let policy = try await BinaryRunner.run(["fetch", "--cache-policy", "sometimes", server.url("/x.jpg").absoluteString])
        #expect(policy.status == 64)
        #expect(policy.stderr.contains("ignore-headers"), "\(policy.stderr)")

        for command in [["--help"], ["fetch", "--help"], ["prefetch", "--help"], ["cache", "--help"], ["--version"]] {
            let help = try await BinaryRunner.run(command)
            #expect(help.status == 0, "\(command)")
            #expect(!help.stdout.isEmpty)
        }
    }

    @Test func encryptedCacheRoundTripAndMaintenance() async throws {
        let server = try NginxServer.start(root: sharedCorpus, extraServerConfig: NginxServer.freshForAnHour)
        defer { server.stop(); try? FileManager.default.removeItem(at: temp) }
        let key = temp.appendingPathComponent("pictor.key").path
        #expect(try await BinaryRunner.run(["cache", "key", "generate", "--out", key]).status == 0)
        #expect(try await BinaryRunner.run(["cache", "key", "generate", "--out", key]).status == 1, "never overwrites a key")
        let url = server.url("/exif-orientation/Landscape_3.jpg").absoluteString
        let cold = try await BinaryRunner.run(["fetch", url, "--cache-dir", cacheDir, "--key-file", key])
        #expect(cold.status == 0, "\(cold.stderr)")
        let warm = try await BinaryRunner.run(["fetch", url, "--cache-dir", cacheDir, "--key-file", key])
        #expect(warm.stdout.contains("  disk  "), "\(warm.stdout)")

        // Nothing on disk names the host or the file.
        for file in try FileManager.default.subpathsOfDirectory(atPath: cacheDir) {
            #expect(!file.contains("Landscape"))
            let path = (cacheDir as NSString).appendingPathComponent(file)
            if let bytes = FileManager.default.contents(atPath: path) {
                #expect(bytes.range(of: Data("Landscape_3".utf8)) == nil, "\(file) reveals the URL")
                #expect(bytes.range(of: Data("127.0.0.1".utf8)) == nil, "\(file) reveals the host")
            }
        }

        let stats = try await BinaryRunner.run(["cache", "stats", "--cache-dir", cacheDir, "--key-file", key])
        #expect(stats.status == 0)
        #expect(stats.stdout.contains("entries:     1"), "\(stats.stdout)")
        #expect(stats.stdout.contains("encrypted:   yes"))
        #expect(try await BinaryRunner.run(["cache", "verify", "--cache-dir", cacheDir, "--key-file", key]).status == 0)
        let list = try await BinaryRunner.run(["cache", "list", "--cache-dir", cacheDir, "--key-file", key])
        #expect(list.status == 0 && !list.stdout.contains("Landscape"))

        // The wrong key, or no key: refused before anything is read or written (never wrong
        // bytes, never plaintext entries mixed into an encrypted cache, never entries lost).
        let other = temp.appendingPathComponent("other.key").path
        #expect(try await BinaryRunner.run(["cache", "key", "generate", "--out", other]).status == 0)
        let wrong = try await BinaryRunner.run(["fetch", url, "--cache-dir", cacheDir, "--key-file", other])
        #expect(wrong.status == 73)
        #expect(wrong.stderr.contains("encrypted with another key"), "\(wrong.stderr)")
        let none = try await BinaryRunner.run(["fetch", url, "--cache-dir", cacheDir])
        #expect(none.status == 73)
        #expect(none.stderr.contains("--key-file"), "\(none.stderr)")
        let stillThere = try await BinaryRunner.run(["cache", "stats", "--cache-dir", cacheDir, "--key-file", key])
        #expect(stillThere.stdout.contains("entries:     1"), "\(stillThere.stdout)")

        // A key file readable by others is refused: the cache cannot be used without its key.
        chmod(other, 0o644)
        let loose = try await BinaryRunner.run(["fetch", url, "--cache-dir", cacheDir, "--key-file", other])
        #expect(loose.status == 73)

        let clear = try await BinaryRunner.run(["cache", "clear", "--cache-dir", cacheDir, "--key-file", key])
        #expect(clear.status == 0)
        let after = try await BinaryRunner.run(["cache", "stats", "--cache-dir", cacheDir, "--key-file", key])
        #expect(after.stdout.contains("entries:     0"), "\(after.stdout)")

        // A lost key: `clear --force` discards the entries and resets the cache to the given key.
        #expect(try await BinaryRunner.run(["fetch", url, "--cache-dir", cacheDir, "--key-file", key]).status == 0)
        chmod(other, 0o600)
        #expect(try await BinaryRunner.run(["cache", "clear", "--cache-dir", cacheDir, "--key-file", other]).status == 73)
        let forced = try await BinaryRunner.run(["cache", "clear", "--force", "--cache-dir", cacheDir, "--key-file", other])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try await BinaryRunner.run(["fetch", url, "--cache-dir", cacheDir, "--key-file", other]).status == 0)
    }
}
