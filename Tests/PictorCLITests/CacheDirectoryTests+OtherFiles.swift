import Foundation
import Pictor
import PictorTestSupport
import Testing
@testable import PictorCLI

/// A cache directory that also holds files of others (`lost+found`, `.DS_Store`, a README, a
/// backup of the index) is still a cache, and they are kept; a folder of other files is not.
extension CacheDirectoryTests {
    @Test func aCacheWithFilesOfOthersBesideItIsUsedAndTheyAreKept() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try fill()
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("lost+found"), withIntermediateDirectories: true)
        let others = [".DS_Store", "README.txt", "index.sqlite.bak"]
        for name in others { try Data(name.utf8).write(to: directory.appendingPathComponent(name)) }
        let (stats, statsConsole) = await run(["cache", "stats", "--cache-dir", directory.path])
        #expect(stats == 0, "\(statsConsole.errors)")
        #expect(statsConsole.output.contains("entries:     3"), "\(statsConsole.output)")
        let (verify, verifyConsole) = await run(["cache", "verify", "--cache-dir", directory.path])
        #expect(verify == 0, "\(verifyConsole.errors)")
        #expect(verifyConsole.output.contains("3 valid") && verifyConsole.output.contains("0 stray files"), "\(verifyConsole.output)")
        let (clear, clearConsole) = await run(["cache", "clear", "--force", "--cache-dir", directory.path])
        #expect(clear == 0, "\(clearConsole.errors)")
        #expect(clearConsole.output.contains("removed 3 entries"), "\(clearConsole.output)")
        for name in others { #expect(FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) == Data(name.utf8)) }
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("lost+found").path))
    }

    @Test func aFolderOfOtherFilesWithDigestNamesIsStillRefused() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let download = directory.appendingPathComponent(String(repeating: "cd", count: 32))
        try Data("a download".utf8).write(to: download)
        try Data("notes".utf8).write(to: directory.appendingPathComponent("README.txt"))
        for command in [["cache", "verify"], ["cache", "clear", "--force"]] {
            let (code, console) = await run(command + ["--cache-dir", directory.path])
            #expect(code == 73, "\(command)")
            #expect(console.errors.contains("is not a Pictor cache"), "\(command): \(console.errors)")
        }
        #expect(FileManager.default.contents(atPath: download.path) == Data("a download".utf8))
    }

    /// A cache whose `tmp` folder was replaced by a file cannot be written through: the refusal
    /// names that file rather than "other files", and nothing is changed.
    @Test func aCacheWhoseTmpIsAFileIsRefusedByName() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try fill()
        let tmp = directory.appendingPathComponent("tmp")
        try FileManager.default.removeItem(at: tmp)
        try Data("x".utf8).write(to: tmp)
        let (code, console) = await run(["cache", "stats", "--cache-dir", directory.path])
        #expect(code == 73)
        #expect(console.errors.contains("\(tmp.path) is not a folder"), "\(console.errors)")
        #expect(!console.errors.contains("holds other files"), "\(console.errors)")
        #expect(FileManager.default.contents(atPath: tmp.path) == Data("x".utf8))
    }
}
