import Foundation
import PictorCLI
import PictorTestSupport

/// The shared corpus beside the checkout (`../shared/corpus`).
let sharedCorpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus", isDirectory: true)

/// pngsuite in the shared corpus (`../shared/corpus/pngsuite`).
let corpusPNGSuite = sharedCorpus.appendingPathComponent("pngsuite", isDirectory: true)

/// Runs `pictor` in-process with a recording console and no usable home directory.
func runPictor(_ args: [String]) async -> (Int32, RecordingConsole) {
    let console = RecordingConsole()
    let code = await PictorCommand.run(args, console: console.console, environment: ["HOME": "/nonexistent-home"])
    return (code, console)
}

/// A new empty directory under the temporary directory; the caller removes it.
func makeTemporaryDirectory(_ name: String) throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}
