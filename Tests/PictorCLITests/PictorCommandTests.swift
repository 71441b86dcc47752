import Foundation
import Testing
@testable import PictorCLI

/// The command in-process, with a recording console.
@Suite struct PictorCommandTests {
    func run(_ args: [String], env: [String: String] = ["HOME": "/nonexistent-home"]) async -> (Int32, RecordingConsole) {
        let console = RecordingConsole()
        let code = await PictorCommand.run(args, console: console.console, environment: env)
        return (code, console)
    }

    @Test func noArgumentsIsAUsageError() async {
        let (code, console) = await run([])
        #expect(code == 64)
        #expect(console.errors.contains("USAGE"))
    }

    @Test func unknownCommandNamesTheToken() async {
        let (code, console) = await run(["fetchh"])
        #expect(code == 64)
        #expect(console.errors.contains("'fetchh'"))
    }

    @Test(arguments: [["--help"], ["fetch", "-h"], ["prefetch", "--help"], ["cache", "--help"], ["cache", "stats", "--help"]])
    func helpExitsZero(_ args: [String]) async {
        let (code, console) = await run(args)
        #expect(code == 0)
        #expect(console.output.contains("USAGE") || console.output.contains("pictor"))
    }

    @Test func missingURLIsAUsageError() async {
        let (code, console) = await run(["fetch"])
        #expect(code == 64)
        #expect(console.errors.contains("missing <url>"))
    }

    @Test func badURLIsNamed() async {
        let (code, console) = await run(["fetch", "ftp://example.org/a.jpg"])
        #expect(code == 64)
        #expect(console.errors.contains("'ftp://example.org/a.jpg'"))
    }

    @Test func missingURLFileIsNamed() async {
        let (code, console) = await run(["prefetch", "/no/such/list.txt"])
        #expect(code == 64)
        #expect(console.errors.contains("'/no/such/list.txt'"))
    }

    @Test func defaultCacheDirectoryFollowsXDG() {
        let a = CommandContext(console: RecordingConsole().console, environment: ["XDG_CACHE_HOME": "/x", "HOME": "/h"])
        #expect(a.defaultCacheDirectory.path == "/x/pictor")
        let b = CommandContext(console: RecordingConsole().console, environment: ["HOME": "/h"])
        #expect(b.defaultCacheDirectory.path == "/h/.cache/pictor")
    }

    @Test func fileURLsWorkWithoutAServer() async throws {
        // A file written by libvips' encoder through the CLI's own path: fetch a file:// URL.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-cmd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("missing.png")
        let (code, console) = await run(["fetch", missing.absoluteString, "--no-cache"])
        #expect(code == 1)
        #expect(console.errors.contains("failed"))
    }
}

/// Regressions found by a newcomer trying the CLI.
@Suite struct PictorCommandRegressionTests {
    func run(_ args: [String]) async -> (Int32, RecordingConsole) {
        let console = RecordingConsole()
        let code = await PictorCommand.run(args, console: console.console, environment: ["HOME": "/nonexistent-home"])
        return (code, console)
    }

    @Test func anOptionIsNeverTakenAsAnotherOptionsValue() async {
        // `-o --cache-dir X` once created a directory named "--cache-dir" and used the default cache.
        let (code, console) = await run(["fetch", "http://127.0.0.1:9/a.jpg", "-o", "--cache-dir", "/tmp/x"])
        #expect(code == 64)
        #expect(console.errors.contains("missing value for '-o'"))
        #expect(!FileManager.default.fileExists(atPath: "--cache-dir"))
    }

    @Test func outputToADashIsAUsageErrorInBothSpellings() async {
        for args in [["-o", "-"], ["--output=-"]] {
            let (code, console) = await run(["fetch", "http://127.0.0.1:9/a.jpg", "--no-cache"] + args)
            #expect(code == 64, "\(args)")
            #expect(console.errors.contains("'-o'") || console.errors.contains("missing value"), "\(console.errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: "-"))
    }

    @Test func prefetchListErrorsNameTheRealLineNumber() async throws {
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-list-\(UUID().uuidString).txt")
        try "\n\n# comment\nnot a url\n".write(to: list, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: list) }
        let (code, console) = await run(["prefetch", list.path])
        #expect(code == 64)
        #expect(console.errors.contains("\(list.path):4: invalid URL 'not a url'"), "\(console.errors)")
    }

    @Test func maxAgeZeroIsAUsageError() async {
        let (code, _) = await run(["cache", "trim", "--max-age", "0", "--cache-dir", "/tmp/pictor-none"])
        #expect(code == 64)
    }

    @Test func unknownOutputExtensionIsAUsageError() async {
        let (code, console) = await run(["fetch", "http://127.0.0.1:9/a.jpg", "-o", "/tmp/out.txt", "--no-cache"])
        #expect(code == 64)
        #expect(console.errors.contains("'.txt'"))
    }

    @Test func severalURLsAndAFileNameIsAUsageError() async {
        let (code, console) = await run(["fetch", "http://127.0.0.1:9/a.jpg", "http://127.0.0.1:9/b.jpg", "-o", "/tmp/same.png", "--no-cache"])
        #expect(code == 64)
        #expect(console.errors.contains("pass a directory"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/same.png"))
    }

    @Test func readOnlyCacheCommandsDoNotCreateADirectory() async {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-absent-\(UUID().uuidString)").path
        let (code, console) = await run(["cache", "stats", "--cache-dir", dir])
        #expect(code == 73)
        #expect(console.errors.contains("no cache at"))
        #expect(!FileManager.default.fileExists(atPath: dir))
        let (clear, _) = await run(["cache", "clear", "--cache-dir", dir])
        #expect(clear == 0)
        #expect(!FileManager.default.fileExists(atPath: dir))
    }

    @Test func keyGenerateIntoADirectoryIsAUsageError() async {
        let (code, console) = await run(["cache", "key", "generate", "--out", FileManager.default.temporaryDirectory.path])
        #expect(code == 64)
        #expect(console.errors.contains("is a directory"))
    }

    @Test func aHugeSizeLimitIsAUsageErrorNotACrash() async {
        let (code, console) = await run(["cache", "trim", "--size-limit", "99999999999T", "--cache-dir", "/tmp/pictor-none"])
        #expect(code == 64)
        #expect(console.errors.contains("too large"))
    }

    @Test func crlfListsAreSplitIntoLines() async throws {
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-crlf-\(UUID().uuidString).txt")
        try "http://127.0.0.1:9/a.png\r\nftp://example.org/b.png\r\n".write(to: list, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: list) }
        let (code, console) = await run(["prefetch", list.path])
        #expect(code == 64)
        #expect(console.errors.contains("\(list.path):2: invalid URL 'ftp://example.org/b.png'"), "\(console.errors)")
    }

    @Test func anImageFileGivenToPrefetchIsOneURL() async throws {
        let corpus = corpusPNGSuite.appendingPathComponent("basn2c08.png")
        guard FileManager.default.fileExists(atPath: corpus.path) else { return }
        let (code, console) = await run(["prefetch", corpus.path, "--no-cache"])
        #expect(code == 0, "\(console.errors)")
        #expect(console.output.contains("1 (1 ok, 0 failed)"), "\(console.output)")
    }

    @Test func aFolderThatIsNotACacheIsNeverAdoptedOrCleared() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-notcache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let precious = dir.appendingPathComponent(String(repeating: "ab", count: 32))
        try Data("not an image cache entry".utf8).write(to: precious)
        for args in [["cache", "stats"], ["cache", "clear", "--force"], ["fetch", "http://127.0.0.1:9/a.png"]] {
            let (code, console) = await run(args + ["--cache-dir", dir.path])
            #expect(code == 73, "\(args)")
            #expect(console.errors.contains("is not a Pictor cache"), "\(args): \(console.errors)")
        }
        #expect(FileManager.default.fileExists(atPath: precious.path))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("index.sqlite").path))
    }

    @Test func reportPathIsCheckedBeforeAnyWork() async {
        let (code, console) = await run(["prefetch", "http://127.0.0.1:9/a.png", "--report", FileManager.default.temporaryDirectory.path, "--no-cache"])
        #expect(code == 64)
        #expect(console.errors.contains("is a directory"))
    }

    @Test func printedURLsHideCredentialsAndStayShort() {
        #expect(Formatting.url(URL(string: "http://user:secret@example.org/a.jpg")!) == "http://user:***@example.org/a.jpg")
        let long = URL(string: "data:image/png;base64," + String(repeating: "A", count: 1000))!
        #expect(Formatting.url(long).count < 240)
    }

    @Test func helpCommandShowsTheSubcommandsHelp() async {
        let (code, console) = await run(["help", "fetch"])
        #expect(code == 0)
        #expect(console.output.contains("USAGE: pictor fetch"))
    }
}

/// URLs typed with spaces or non-ASCII text: encoded once, escapes kept.
@Suite struct URLArgumentTests {
    @Test(arguments: [
        ("http://127.0.0.1/a b.png", "http://127.0.0.1/a%20b.png"),
        ("http://127.0.0.1/caf\u{E9}.png", "http://127.0.0.1/caf%C3%A9.png"),
        ("http://127.0.0.1/a%20b.png", "http://127.0.0.1/a%20b.png"),
        ("http://127.0.0.1/a b%41.png", "http://127.0.0.1/a%20b%41.png"),
    ])
    func urlsArePercentEncodedOnce(text: String, expected: String) throws {
        #expect(try FetchCommand.parseURL(text).absoluteString == expected)
    }

    @Test(arguments: ["http://127.0.0.1:99999/x.jpg", "http://127.0.0.1:0/x.jpg"])
    func aPortOutOfRangeIsAUsageError(text: String) {
        #expect(throws: CLIError.self) { _ = try FetchCommand.parseURL(text) }
    }
}
