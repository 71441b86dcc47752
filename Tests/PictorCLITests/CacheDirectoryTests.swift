import Foundation
import Pictor
import PictorTestSupport
import Testing
@testable import PictorCLI

/// Which folders the CLI treats as caches: its own in every state (index lost, being created
/// by another process, read-only), never a folder of other files.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct CacheDirectoryTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-cachedir-\(UUID().uuidString)")

    func run(_ args: [String]) async -> (Int32, RecordingConsole) {
        let console = RecordingConsole()
        let code = await PictorCommand.run(args, console: console.console, environment: ["HOME": "/nonexistent-home"])
        return (code, console)
    }

    func fill(count: Int = 3) throws {
        var configuration = DiskCache.Configuration(directory: directory)
        configuration.logger = .disabled
        let cache = try DiskCache(configuration: configuration)
        for i in 0..<count { cache.store(Data(repeating: UInt8(i), count: 200), for: "https://example.org/\(i).png") }
        cache.flush()
    }

    @Test func aCacheWhoseIndexAndLockWereDeletedIsStillACache() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try fill()
        for name in ["index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "lock"] {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
        let (verify, verifyConsole) = await run(["cache", "verify", "--cache-dir", directory.path])
        #expect(verify == 0, "\(verifyConsole.errors)")
        #expect(verifyConsole.output.contains("checked 3 entries: 3 valid"), "\(verifyConsole.output)")
        let (clear, clearConsole) = await run(["cache", "clear", "--force", "--cache-dir", directory.path])
        #expect(clear == 0, "\(clearConsole.errors)")
        #expect(clearConsole.output.contains("removed 3 entries"), "\(clearConsole.output)")
    }

    @Test func aFolderOfDigestNamedFilesThatAreNotEntriesIsRefused() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: directory.appendingPathComponent(String(repeating: "0", count: 64)))
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let (code, console) = await run(["cache", "verify", "--cache-dir", directory.path])
        #expect(code == 73)
        #expect(console.errors.contains("is not a Pictor cache"))
    }

    @Test func aFolderBeingCreatedByAnotherProcessIsACache() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // What another process has made before its index exists
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: directory.appendingPathComponent("lock").path, contents: nil))
        #expect(DiskCache.looksLikeCacheDirectory(directory))
    }

    @Test func aFolderHoldingOnlyTheTemporaryDirectoryIsACacheBeingCreated() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // The first thing another process makes, before its lock and index (seen in a race).
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        #expect(DiskCache.looksLikeCacheDirectory(directory))
    }

    @Test(.enabled(if: BinaryRunner.isAvailable, "needs the built pictor binary"))
    func fourProcessesOpeningOneNewDirectoryAllSucceed() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        for round in 0..<4 {
            let fresh = directory.appendingPathComponent("round\(round)")
            try FileManager.default.createDirectory(at: fresh, withIntermediateDirectories: true)
            let outcomes = await withTaskGroup(of: BinaryRunner.Outcome?.self) { group in
                for _ in 0..<4 {
                    group.addTask { try? await offPool { try BinaryRunner.runBlocking(["cache", "stats", "--cache-dir", fresh.path]) } }
                }
                var all: [BinaryRunner.Outcome?] = []
                for await outcome in group { all.append(outcome) }
                return all
            }
            for outcome in outcomes {
                #expect(outcome?.status == 0, "round \(round): \(outcome?.stderr ?? "did not run")")
            }
        }
    }

    /// Runs `mount`/`umount` with `arguments`; `true` on success.
    static func mount(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        return LoopbackHTTP.waitForExit(process) == 0
    }

    /// Remounts the tmpfs at `path` read-only. The filling cache's last background work can
    /// still hold a file open for writing for a moment after it is released, and the kernel
    /// refuses to remount then (EBUSY): tried again for up to 10 s.
    static func remountReadOnly(_ path: String) async -> Bool {
        let remounted = try? await offPool {
            for _ in 0..<200 {
                if mount("/bin/mount", ["-o", "remount,ro", path]) { return true }
                usleep(50_000)
            }
            return false
        }
        return remounted ?? false
    }

    @Test(.enabled(if: getuid() == 0, "needs root to mount a tmpfs"))
    func aReadOnlyCacheIsReportedByStatsListAndVerify() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard Self.mount("/bin/mount", ["-t", "tmpfs", "-o", "size=1024k", "tmpfs", directory.path]) else { return }
        defer { _ = Self.mount("/bin/umount", ["-l", directory.path]) }
        try fill()
        #expect(await Self.remountReadOnly(directory.path))
        let (stats, statsConsole) = await run(["cache", "stats", "--cache-dir", directory.path])
        #expect(stats == 0, "\(statsConsole.errors)")
        #expect(statsConsole.output.contains("entries:     3"), "\(statsConsole.output)")
        #expect(statsConsole.errors.contains("read-only"), "\(statsConsole.errors)")
        let (list, listConsole) = await run(["cache", "list", "--cache-dir", directory.path])
        #expect(list == 0)
        #expect(listConsole.output.split(separator: "\n").count == 4, "\(listConsole.output)")
        let (verify, verifyConsole) = await run(["cache", "verify", "--cache-dir", directory.path])
        #expect(verify == 0, "\(verifyConsole.errors)")
        #expect(verifyConsole.output.contains("3 valid"), "\(verifyConsole.output)")
        let (clear, clearConsole) = await run(["cache", "clear", "--force", "--cache-dir", directory.path])
        #expect(clear == 73)
        #expect(clearConsole.errors.contains("read-only"), "\(clearConsole.errors)")
    }

    @Test(.enabled(if: getuid() == 0, "needs root to mount a tmpfs"))
    func everyCommandThatMustWriteAReadOnlyCacheExits73AndClaimsNothing() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = try makeTemporaryDirectory("ro-keys")
        defer { try? FileManager.default.removeItem(at: keys) }
        let newKey = keys.appendingPathComponent("new.key").path
        try EncryptionKey.generate().write(toFile: newKey)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard Self.mount("/bin/mount", ["-t", "tmpfs", "-o", "size=1024k", "tmpfs", directory.path]) else { return }
        defer { _ = Self.mount("/bin/umount", ["-l", directory.path]) }
        try fill()
        #expect(await Self.remountReadOnly(directory.path))
        let commands: [[String]] = [
            ["cache", "rm", "https://example.org/0.png"],
            ["cache", "trim", "--size-limit", "1"],
            ["cache", "clear"],
            ["cache", "clear", "--force"],
            ["cache", "rekey", "--new-key-file", newKey],
        ]
        for command in commands {
            let (code, console) = await run(command + ["--cache-dir", directory.path])
            #expect(code == 73, "\(command): \(console.output) \(console.errors)")
            #expect(console.errors.contains("is read-only"), "\(command): \(console.errors)")
            #expect(!console.output.contains("removed"), "\(command) claims a removal: \(console.output)")
        }
        let (rm, rmConsole) = await run(["cache", "rm", "https://example.org/0.png", "--cache-dir", directory.path])
        #expect(rm == 73)
        #expect(rmConsole.errors.contains("nothing was removed"), "\(rmConsole.errors)")
        let (stats, statsConsole) = await run(["cache", "stats", "--cache-dir", directory.path])
        #expect(stats == 0)
        #expect(statsConsole.output.contains("entries:     3"), "\(statsConsole.output)")
    }

    @Test(arguments: ["missing", "loose", "short", "empty", "directory"])
    func aKeyFileThatCannotBeUsedExits73WithItsReason(_ problem: String) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try fill()
        let keys = try makeTemporaryDirectory("bad-keys")
        defer { try? FileManager.default.removeItem(at: keys) }
        let key = keys.appendingPathComponent("pictor.key").path
        switch problem {
        case "loose":
            try EncryptionKey.generate().write(toFile: key)
            chmod(key, 0o644)
        case "short":
            #expect(FileManager.default.createFile(atPath: key, contents: Data(String(repeating: "ab", count: 8).utf8), attributes: [.posixPermissions: 0o600]))
        case "empty":
            #expect(FileManager.default.createFile(atPath: key, contents: Data(), attributes: [.posixPermissions: 0o600]))
        case "directory":
            try FileManager.default.createDirectory(atPath: key, withIntermediateDirectories: true)
        default:
            break
        }
        for command in [["cache", "stats"], ["cache", "clear"], ["cache", "has", "https://example.org/0.png"],
                        ["fetch", "http://127.0.0.1:9/a.png"], ["cache", "rekey", "--new-key-file", key]] {
            let keyArguments = command[1] == "rekey" ? [] : ["--key-file", key]
            let (code, console) = await run(command + keyArguments + ["--cache-dir", directory.path])
            #expect(code == 73, "\(problem) \(command): \(console.errors)")
            #expect(console.errors.contains(key), "\(problem) \(command): the message names the file: \(console.errors)")
        }
        // Nothing was changed
        let (stats, statsConsole) = await run(["cache", "stats", "--cache-dir", directory.path])
        #expect(stats == 0)
        #expect(statsConsole.output.contains("entries:     3"), "\(statsConsole.output)")
    }

    @Test func aMissingCacheIsAnAnswerForHasAndRmAndUnusableForTheRest() async throws {
        // `directory` is never created
        let (has, hasConsole) = await run(["cache", "has", "https://example.org/a.png", "https://example.org/b.png", "--cache-dir", directory.path])
        #expect(has == 1)
        #expect(hasConsole.output == "no\thttps://example.org/a.png\nno\thttps://example.org/b.png\n", "\(hasConsole.output)")
        #expect(hasConsole.errors.isEmpty, "not an error: \(hasConsole.errors)")
        let (rm, rmConsole) = await run(["cache", "rm", "https://example.org/a.png", "--cache-dir", directory.path])
        #expect(rm == 0, "\(rmConsole.errors)")
        #expect(rmConsole.output == "not cached\thttps://example.org/a.png\n", "\(rmConsole.output)")
        for sub in [["stats"], ["list"], ["verify"], ["trim"], ["rekey", "--new-key-file", "/nonexistent.key"]] {
            let (code, console) = await run(["cache"] + sub + ["--cache-dir", directory.path])
            #expect(code == 73, "\(sub)")
            #expect(console.errors.contains("no cache at \(directory.path)"), "\(sub): \(console.errors)")
        }
        let (clear, clearConsole) = await run(["cache", "clear", "--cache-dir", directory.path])
        #expect(clear == 0)
        #expect(clearConsole.output.contains("nothing to clear"))
        #expect(!FileManager.default.fileExists(atPath: directory.path), "no command created it")
    }
}
