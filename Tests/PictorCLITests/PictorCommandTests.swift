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
