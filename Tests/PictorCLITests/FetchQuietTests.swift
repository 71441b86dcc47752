import Foundation
import Testing
@testable import PictorCLI

/// `fetch -q`: nothing on standard output for an image that worked.
@Suite(.timeLimit(.minutes(5)))
struct FetchQuietTests {
    @Test(.enabled(if: FileManager.default.fileExists(atPath: corpusPNGSuite.path)), arguments: ["-q", "--quiet"])
    func fetchTakesQuiet(_ flag: String) async throws {
        let image = corpusPNGSuite.appendingPathComponent("basn2c08.png").path
        let out = try makeTemporaryDirectory("fetch-quiet")
        defer { try? FileManager.default.removeItem(at: out) }
        let (code, console) = await runPictor(["fetch", image, "--no-cache", flag, "-o", out.appendingPathComponent("a.png").path])
        #expect(code == 0, "\(console.errors)")
        #expect(console.output.isEmpty, "\(console.output)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("a.png").path))
        // A failure is still reported, and --json still prints
        let (failed, failedConsole) = await runPictor(["fetch", "/nonexistent/a.png", "--no-cache", flag])
        #expect(failed == 1)
        #expect(failedConsole.errors.contains("failed"), "\(failedConsole.errors)")
        let (json, jsonConsole) = await runPictor(["fetch", image, "--no-cache", flag, "--json"])
        #expect(json == 0)
        #expect(jsonConsole.output.split(separator: "\n").count == 2, "\(jsonConsole.output)")
    }
}
