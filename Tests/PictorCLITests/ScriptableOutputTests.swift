import Foundation
import Testing
@testable import PictorCLI
import PictorTestSupport
import Synchronization

private let pngsuite = corpusPNGSuite

/// Output for scripts: JSON Lines, progress on standard error, lists from standard input with
/// comments, the report as the run goes, Ctrl-C.
@Suite(.timeLimit(.minutes(5)))
struct ScriptableOutputTests {
    func run(_ args: [String]) async -> (Int32, RecordingConsole) {
        let console = RecordingConsole()
        let code = await PictorCommand.run(args, console: console.console, environment: ["HOME": "/nonexistent-home"])
        return (code, console)
    }

    func objects(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: pngsuite.path)))
    func prefetchJSONIsOneObjectPerImageThenASummary() async throws {
        let good = ["basn2c08.png", "basn0g01.png", "basn6a08.png"].map { pngsuite.appendingPathComponent($0).path }
        let bad = "file:///nonexistent/missing.png"
        let (code, console) = await run(["prefetch"] + good + [bad, "--json", "--no-cache"])
        #expect(code == 1, "one image failed")
        let lines = try objects(console.output)
        #expect(lines.count == 5, "\(console.output)")
        let images = lines.filter { $0["type"] as? String == "image" }
        #expect(images.count == 4)
        #expect(images.filter { $0["status"] as? String == "ok" }.allSatisfy { ($0["width"] as? Int ?? 0) > 0 && $0["layer"] != nil })
        #expect(images.filter { $0["status"] as? String == "failed" }.first?["error"] is String)
        let summary = try #require(lines.last)
        #expect(summary["type"] as? String == "summary")
        #expect(summary["images"] as? Int == 4)
        #expect(summary["ok"] as? Int == 3)
        #expect(summary["failed"] as? Int == 1)
        #expect((summary["layers"] as? [String: Int])?["network"] == 3)
        #expect(!console.output.contains("progress"), "progress goes to standard error")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: pngsuite.path)))
    func fetchJSONToo() async throws {
        let (code, console) = await run(["fetch", pngsuite.appendingPathComponent("basn2c08.png").path, "--json", "--no-cache"])
        #expect(code == 0, "\(console.errors)")
        let lines = try objects(console.output)
        #expect(lines.map { $0["type"] as? String } == ["image", "summary"])
        #expect(lines.first?["width"] as? Int == 32)
    }

    @Test func listsComeFromStandardInputAndCommentLinesAreIgnored() throws {
        let list = """
        # a list
        https://example.org/a.png
          # indented
        https://example.org/b.png#fragment
        \thttps://example.org/c.png\t
        """
        let urls = try PrefetchCommand.readURLs(["-"], standardInput: { Data(list.utf8) })
        #expect(urls.map(\.absoluteString) == [
            "https://example.org/a.png", "https://example.org/b.png#fragment", "https://example.org/c.png",
        ])
        #expect(throws: CLIError.self) { try PrefetchCommand.readURLs(["-"], standardInput: { Data("ftp://x/y\n".utf8) }) }
    }

    /// A comment is a line whose first non-blank character is `#`, and nothing else is: a `#`
    /// after a space was taken for a comment, so the path `/data/dir #1/a.png` was loaded as
    /// `/data/dir`. Lines end in CRLF here; the second list has a non-ASCII line, which sends it
    /// through the `Character`-level split instead of the byte-level one.
    @Test(arguments: ["", "# é\r\n"])
    func onlyALineThatStartsWithAHashIsAComment(_ nonASCII: String) throws {
        let list = [
            "# a comment", "\t# after a tab", "  \t # after blanks", "     ", "\t",
            "/data/dir #1/a.png", "https://example.org/a.png#x", "/data/dir\t#2/b.png", "  /data/c.png  # no comment",
        ].joined(separator: "\r\n") + "\r\n" + nonASCII
        let lines = URLList.lines(Data(list.utf8))
        #expect(lines.map(\.number) == [6, 7, 8, 9])
        #expect(lines.map(\.line) == [
            "/data/dir #1/a.png", "https://example.org/a.png#x", "/data/dir\t#2/b.png", "/data/c.png  # no comment",
        ])
        let urls = try PrefetchCommand.readURLs(["-"], standardInput: { Data(list.utf8) })
        #expect(urls.map { $0.isFileURL ? $0.path : $0.absoluteString } == [
            "/data/dir #1/a.png", "https://example.org/a.png#x", "/data/dir\t#2/b.png", "/data/c.png  # no comment",
        ])
    }

    /// A list from a pipe (`<(…)`, `/dev/stdin`, a named FIFO) is read as a list: it was
    /// refused as "not a readable file". A directory is still refused.
    @Test func aListFromAPipeIsRead() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("list").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            handle.write(Data("https://example.org/a.png\nhttps://example.org/b.png\n".utf8))
            try? handle.close()
        }
        writer.start()
        let urls = try PrefetchCommand.readURLs([fifo])
        #expect(urls.map(\.absoluteString) == ["https://example.org/a.png", "https://example.org/b.png"])
        #expect(throws: CLIError.self) { try PrefetchCommand.readURLs([directory.path]) }
    }

    /// A byte order mark, at the start of a list or of a line (lists joined), is not part of a
    /// URL; a list with NUL bytes (a binary file) is refused as one, not read as URLs.
    @Test func byteOrderMarksAreSkippedAndBinaryListsRefused() throws {
        let bom = "\u{FEFF}"
        let list = bom + "https://example.org/a.png\r\n" + bom + "https://example.org/b.png\n"
        let urls = try PrefetchCommand.readURLs(["-"], standardInput: { Data(list.utf8) })
        #expect(urls.map(\.absoluteString) == ["https://example.org/a.png", "https://example.org/b.png"])
        let binary = Data("https://example.org/a.png\n".utf8) + Data([0x00, 0x9F, 0x1B, 0x41])
        do {
            _ = try PrefetchCommand.readURLs(["-"], standardInput: { binary })
            Issue.record("a list with NUL bytes was read")
        } catch let error as CLIError {
            #expect("\(error)".contains("NUL"), "\(error)")
        }
    }

    /// Control characters that came in a list line (an escape sequence that would recolour the
    /// terminal or set its title) are written escaped, and a long line is shortened.
    @Test func controlCharactersInInputAreEscapedInMessages() async throws {
        let dir = try makeTemporaryDirectory("escapes")
        defer { try? FileManager.default.removeItem(at: dir) }
        let list = dir.appendingPathComponent("list.txt")
        try Data("\u{1B}[31mRED\u{1B}]0;TITLE\u{07}\n".utf8).write(to: list)
        let (code, console) = await runPictor(["prefetch", list.path, "--no-cache", "-q"])
        #expect(code == 64)
        #expect(!console.errors.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(console.errors.debugDescription)")
        #expect(console.errors.contains("\\u{1B}[31mRED"), "\(console.errors)")
        try Data((String(repeating: "x", count: 5_000) + "\n").utf8).write(to: list)
        let (_, long) = await runPictor(["prefetch", list.path, "--no-cache", "-q"])
        #expect(long.errors.count < 400 && long.errors.contains("…"), "\(long.errors.count) characters")
        #expect(Console.escapingControlCharacters("a\tb\nc\u{9B}d\u{7F}") == "a\tb\nc\\u{9B}d\\u{7F}")
    }

    /// The byte-level split of an ASCII list gives exactly the lines, numbers and trimming of the
    /// `Character`-level one used for any other list (a non-ASCII comment at the end forces it).
    @Test func asciiListsSplitAsAnyOtherList() {
        let alphabet = Array("ab/:# \t\r\n\u{0B}\u{0C}\r\n#")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let text = String((0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            let ascii = URLList.lines(Data(text.utf8))
            let unicode = URLList.lines(Data((text + "\n# é").utf8))
            #expect(ascii.map(\.number) == unicode.map(\.number), "\(text.debugDescription)")
            #expect(ascii.map(\.line) == unicode.map(\.line), "\(text.debugDescription)")
        }
        let lines = URLList.lines(Data("a\r\n\r\n  b # c\rd#e\n\t#f\n g".utf8))
        #expect(lines.map(\.number) == [1, 3, 4, 6])
        #expect(lines.map(\.line) == ["a", "b # c", "d#e", "g"])
    }

    /// Ctrl-C ends the wait for background revalidations at once, however long they take;
    /// without it the wait lasts as long as the work.
    @Test func anInterruptionEndsTheWaitForBackgroundWork() async {
        let interruption = Interruption()
        defer { interruption.stop() }
        let gate = AsyncGate(isOpen: false)
        let finished = Mutex(false)
        let waiting = Task {
            await interruption.untilInterrupted { try? await gate.pass() }
            finished.withLock { $0 = true }
        }
        interruption.interrupt()
        await waiting.value
        #expect(finished.withLock { $0 }, "returned while the work still waits")
        gate.open()

        let uninterrupted = Interruption()
        defer { uninterrupted.stop() }
        let done = Mutex(false)
        await uninterrupted.untilInterrupted { done.withLock { $0 = true } }
        #expect(done.withLock { $0 })
    }

    @Test func anInterruptionStartsNothingNewAndKeepsWhatFinished() async {
        let urls = (0..<50).map { URL(string: "https://example.org/\($0).png")! }
        let interruption = Interruption()
        defer { interruption.stop() }
        let started = Mutex(0)
        let results = await PrefetchCommand.runAll(urls: urls, concurrency: 2, interruption: interruption) { _, url in
            let count = started.withLock { $0 += 1; return $0 }
            // The first four finish at once; the fifth presses Ctrl-C and waits to be cancelled.
            guard count >= 5 else { return ImageJob.Result(url: url, status: .ok) }
            if count == 5 { interruption.interrupt() }
            try? await Task.sleep(for: .seconds(10))
            return ImageJob.Result(url: url, status: Task.isCancelled ? .cancelled : .ok)
        }
        #expect(interruption.happened)
        #expect(started.withLock { $0 } <= 6, "no new URL after the interruption")
        #expect(results.count < urls.count)
        #expect(results.prefix(4).allSatisfy { $0.status == .ok }, "what finished is kept")
        #expect(results.dropFirst(4).allSatisfy { $0.status == .cancelled }, "\(results.map(\.status))")
    }
}

/// Ctrl-C on the real binary: partial summary, the report kept, exit 130.
@Suite(.enabled(if: BinaryRunner.isAvailable && FaultServer.isAvailable))
struct InterruptedPrefetchTests {
    @Test func ctrlCPrintsThePartialSummaryKeepsTheReportAndExits130() async throws {
        let server = try await offPool { try FaultServer() }
        defer { server.stop() }
        let temp = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-int-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temp) }
        let list = temp.appendingPathComponent("urls.txt")
        try (0..<400).map { server.url("/delay?ms=400&k=int-\($0)").absoluteString }.joined(separator: "\n")
            .write(to: list, atomically: false, encoding: .utf8)
        let report = temp.appendingPathComponent("report.tsv")
        let run = try BinaryRunner.Running(["prefetch", list.path, "--concurrency", "2", "--no-cache", "--report", report.path])
        // Wait until a few images are done, as seen in the report, then press Ctrl-C.
        let pid = run.process.processIdentifier
        try await run.whenReport(report, hasLines: 3) { kill(pid, SIGINT) }
        let outcome = try await run.finish()
        let output = outcome.stdout
        #expect(outcome.status == 130, "\(output)")
        #expect(output.contains("Summary"), "\(output)")
        #expect(output.contains("interrupted:"), "\(output)")
        // The images in flight were cancelled, not failed: two, or one when Ctrl-C came between
        // an image's end and the start of the next
        #expect(output.range(of: #"0 failed, [12] cancelled\)"#, options: .regularExpression) != nil, "\(output)")
        #expect(!output.contains("× cancelled"), "\(output)")
        let lines = try String(contentsOf: report, encoding: .utf8).split(separator: "\n")
        #expect(lines.first?.hasPrefix("url\tstatus") == true)
        #expect(lines.count >= 3 && lines.count < 401)
    }
}

extension ScriptableOutputTests {
    @Test(.enabled(if: FileManager.default.fileExists(atPath: pngsuite.path)),
          arguments: [(["--resize", "x16"], 16, 16), (["--resize", "24x"], 24, 24), (["--resize", "20x10"], 10, 10),
                      (["--resize", "20x10", "--fit", "cover"], 20, 10), (["--resize", "20x10", "--fit", "fill"], 20, 10)])
    func resizeAndFitGiveTheSizeAsked(arguments: [String], width: Int, height: Int) async throws {
        let (code, console) = await run(["fetch", pngsuite.appendingPathComponent("basn2c08.png").path, "--json", "--no-cache"] + arguments)
        #expect(code == 0, "\(console.errors)")
        let image = try #require(try objects(console.output).first)
        #expect(image["width"] as? Int == width, "\(arguments)")
        #expect(image["height"] as? Int == height, "\(arguments)")
    }
}

/// `-H` request headers, against an nginx that wants one.
@Suite(.enabled(if: NginxServer.isAvailable && FileManager.default.fileExists(atPath: pngsuite.path)))
struct RequestHeaderTests {
    @Test func headersAreSentWithEveryImageRequest() async throws {
        let root = pngsuite.deletingLastPathComponent()
        let server = try await offPool {
            try NginxServer.start(root: root, extraServerConfig: """
                location /pngsuite/ { if ($http_x_token != "secret") { return 403; } }
                """)
        }
        defer { server.stop() }
        let url = server.url("/pngsuite/basn2c08.png").absoluteString
        func run(_ args: [String]) async -> (Int32, RecordingConsole) {
            let console = RecordingConsole()
            return (await PictorCommand.run(args, console: console.console, environment: ["HOME": "/nonexistent-home"]), console)
        }
        let refused = await run(["fetch", url, "--no-cache"])
        #expect(refused.0 == 1)
        #expect(refused.1.errors.contains("403"), "\(refused.1.errors)")
        let allowed = await run(["prefetch", url, "-H", "X-Token: secret", "--header=Accept-Language: en", "--no-cache"])
        #expect(allowed.0 == 0, "\(allowed.1.output)")
        let bad = await run(["fetch", url, "-H", "no colon here", "--no-cache"])
        #expect(bad.0 == 64)
        let badName = await run(["fetch", url, "-H", "Bad Name: x", "--no-cache"])
        #expect(badName.0 == 64)
    }
}

/// `cache has` and `cache rm`, by URL.
@Suite(.enabled(if: NginxServer.isAvailable && FileManager.default.fileExists(atPath: pngsuite.path)))
struct CacheEntryCommandTests {
    @Test func hasAndRmFindEntriesByURL() async throws {
        let server = try await offPool { try NginxServer.start(root: pngsuite.deletingLastPathComponent()) }
        defer { server.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-has-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func run(_ args: [String]) async -> (Int32, RecordingConsole) {
            let console = RecordingConsole()
            return (await PictorCommand.run(args + ["--cache-dir", dir], console: console.console, environment: ["HOME": "/nonexistent-home"]), console)
        }
        let cached = server.url("/pngsuite/basn2c08.png").absoluteString
        let other = server.url("/pngsuite/basn0g01.png").absoluteString
        #expect(await run(["prefetch", cached, "--resize", "16"]).0 == 0)

        let both = await run(["cache", "has", cached, other])
        #expect(both.0 == 1, "one is missing")
        #expect(both.1.output.contains("yes\t\(cached)"), "\(both.1.output)")
        #expect(both.1.output.contains("no\t\(other)"), "\(both.1.output)")
        #expect(await run(["cache", "has", cached]).0 == 0)

        let removed = await run(["cache", "rm", cached, "--resize", "16"])
        #expect(removed.0 == 0)
        #expect(removed.1.output.contains("removed\t\(cached)"))
        #expect(await run(["cache", "has", cached]).0 == 1)
        let stats = await run(["cache", "stats"])
        #expect(stats.1.output.contains("entries:     0"), "the resized copy went too: \(stats.1.output)")
    }
}

/// A warm run served by a kept thumbnail reads no original: its records leave the original's
/// size out (absent, not 0), and the fetch line and the report say so too.
@Suite(.enabled(if: NginxServer.isAvailable && FileManager.default.fileExists(atPath: pngsuite.path)))
struct KeptThumbnailBytesTests {
    @Test func aKeptThumbnailReportsNoOriginalBytes() async throws {
        let server = try await offPool { try NginxServer.start(root: pngsuite.deletingLastPathComponent()) }
        defer { server.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-kept-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        func run(_ args: [String]) async -> (Int32, RecordingConsole) {
            let console = RecordingConsole()
            return (await PictorCommand.run(args + ["--cache-dir", dir.path], console: console.console,
                                            environment: ["HOME": "/nonexistent-home"]), console)
        }
        let url = server.url("/pngsuite/basn2c08.png").absoluteString
        let cold = await run(["prefetch", url, "--resize", "16", "--json"])
        #expect(cold.0 == 0)
        let coldRecord = try #require(cold.1.output.split(separator: "\n").first { $0.contains("\"url\"") })
        #expect(coldRecord.contains("\"bytes\""), "the cold run read the original: \(coldRecord)")
        let report = dir.appendingPathComponent("report.tsv").path
        let warm = await run(["prefetch", url, "--resize", "16", "--json", "--report", report])
        #expect(warm.0 == 0)
        let record = try #require(warm.1.output.split(separator: "\n").first { $0.contains("\"url\"") })
        #expect(record.contains("\"layer\":\"disk\""), "\(record)")
        #expect(!record.contains("\"bytes\""), "no original was read: \(record)")
        let row = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n")[1].split(separator: "\t", omittingEmptySubsequences: false)
        #expect(row[5] == "", "the report's bytes column is empty: \(row)")
        let fetch = await run(["fetch", url, "--resize", "16", "-o", dir.appendingPathComponent("out.png").path])
        #expect(fetch.0 == 0)
        #expect(!fetch.1.output.contains(" 0 B "), "\(fetch.1.output)")
    }
}

/// `--size-limit` on a prefetch whose set does not fit: the run says so.
@Suite(.enabled(if: NginxServer.isAvailable && FileManager.default.fileExists(atPath: pngsuite.path)))
struct CacheLimitWarningTests {
    @Test func aSetThatOutgrowsTheCacheIsReported() async throws {
        let server = try await offPool { try NginxServer.start(root: pngsuite.deletingLastPathComponent()) }
        defer { server.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-limit-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let names = try FileManager.default.contentsOfDirectory(atPath: pngsuite.path).filter { $0.hasPrefix("basn") }.sorted()
        let urls = names.map { server.url("/pngsuite/\($0)").absoluteString }
        let console = RecordingConsole()
        let code = await PictorCommand.run(["prefetch"] + urls + ["--data-only", "--cache-dir", dir, "--size-limit", "2K", "--max-age", "7d"],
                                           console: console.console, environment: ["HOME": "/nonexistent-home"])
        #expect(code == 0, "\(console.errors)")
        #expect(console.output.contains("the set outgrew the disk cache"), "\(console.output)")
    }
}

/// What a run counts when Ctrl-C cancels images in flight.
@Suite(.timeLimit(.minutes(5)))
struct CancelledImageTests {
    func result(_ status: ImageJob.Status) -> ImageJob.Result {
        var r = ImageJob.Result(url: URL(string: "https://example.test/\(UUID().uuidString).png")!, status: status)
        if status == .ok { r.layer = "network" }
        return r
    }

    @Test func cancelledImagesAreTalliedApartFromFailures() throws {
        let summary = PrefetchSummary(results: [result(.ok), result(.failed("HTTP 404")), result(.cancelled), result(.cancelled)], elapsed: 1)
        #expect(summary.failures.count == 1)
        #expect(summary.text.contains("images:      4 (1 ok, 1 failed, 2 cancelled)"), "\(summary.text)")
        #expect(!summary.text.contains("cancelled\n") && !summary.text.contains("× cancelled"), "\(summary.text)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(JSONOutput.line(JSONOutput.SummaryRecord(summary, interrupted: true)).utf8)) as? [String: Any])
        #expect(json["ok"] as? Int == 1)
        #expect(json["failed"] as? Int == 1)
        #expect(json["cancelled"] as? Int == 2)
        let image = try #require(try JSONSerialization.jsonObject(with: Data(JSONOutput.line(JSONOutput.ImageRecord(result(.cancelled))).utf8)) as? [String: Any])
        #expect(image["status"] as? String == "cancelled")
        #expect(image["error"] == nil)
        #expect(ReportWriter.line(result(.cancelled), finishedAfter: 0).split(separator: "\t")[1] == "cancelled")
    }

    @Test(.enabled(if: FaultServer.isAvailable))
    func aLoadCancelledInFlightIsCancelledNotFailed() async throws {
        let server = try await offPool { try FaultServer() }
        defer { server.stop() }
        let options = CacheOptions(directory: URL(fileURLWithPath: "/nonexistent"), keyFile: nil, disabled: true)
        let stack = try PipelineStack(cache: options, console: RecordingConsole().console)
        let job = ImageJob(url: server.url("/delay?ms=20000&k=\(UUID().uuidString)"), resize: nil, format: nil, quality: 85)
        let task = Task { await job.run(pipeline: stack.pipeline, output: nil, outputIsDirectory: false) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let result = await task.value
        #expect(result.status == .cancelled, "\(result.status)")
    }
}
