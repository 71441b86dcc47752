import Foundation
import PictorTestSupport
import Testing
@testable import PictorCLI

/// URLs that cannot work are refused before any work; a relative path is a file however it is
/// spelled.
extension PictorCommandRegressionTests {
    @Test(arguments: ["http://", "https://", "http:/one-slash/a.jpg", "http:///a.jpg", "https:a.jpg"])
    func aURLWithoutAHostIsRefusedUpFront(_ text: String) async {
        #expect(throws: CLIError.self) { _ = try FetchCommand.parseURL(text) }
        for command in ["fetch", "prefetch"] {
            let (code, console) = await run([command, text, "--no-cache"])
            #expect(code == 64, "\(command) \(text)")
            #expect(console.errors.contains("'\(text)'"), "\(command): \(console.errors)")
        }
    }

    @Test func aRelativePathIsAFileInEitherSpelling() async throws {
        guard BinaryRunner.isAvailable, FileManager.default.fileExists(atPath: corpusPNGSuite.path) else { return }
        let dir = try makeTemporaryDirectory("relative")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: corpusPNGSuite.appendingPathComponent("basn2c08.png"), to: dir.appendingPathComponent("rel.png"))
        for spelling in ["rel.png", "./rel.png"] {
            for command in ["fetch", "prefetch"] {
                let ok = try await offPool { try BinaryRunner.runBlocking([command, spelling, "--no-cache", "--json"], currentDirectory: dir) }
                #expect(ok.status == 0, "\(command) \(spelling): \(ok.stderr)")
                #expect(ok.stdout.contains("\"url\":\"file://\(dir.path)/rel.png\""), "\(command) \(spelling): \(ok.stdout)")
            }
        }
        // A relative path that names no file is not a URL either: refused up front, in both spellings
        for spelling in ["missing.png", "./missing.png"] {
            let missing = try await offPool { try BinaryRunner.runBlocking(["fetch", spelling, "--no-cache"], currentDirectory: dir) }
            #expect(missing.status == 64, "\(spelling): \(missing.stderr)")
            #expect(missing.stderr.contains("'\(spelling)'"), "\(missing.stderr)")
        }
    }
}
