import Foundation
import PictorTestSupport
import Synchronization
import Testing

/// Runs the built `pictor` executable (built by `swift build` next to the test bundle).
struct BinaryRunner {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var executable: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            packageRoot.appendingPathComponent(".build/debug"),
        ]
        return candidates.map { $0.appendingPathComponent("pictor") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static var isAvailable: Bool { executable != nil }

    /// Runs `pictor` with `arguments` and waits for it on a thread of its own (``offPool(_:)``):
    /// a child can run for seconds, and a test waiting for it on one of the two cooperative
    /// threads of a 2-core machine stalls every other test's tasks (two such waits stall them
    /// all, and a server under test then misses its own deadlines).
    static func run(_ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil) async throws -> Outcome {
        try await offPool { try runBlocking(arguments, environment: environment, currentDirectory: currentDirectory) }
    }

    /// ``run(_:environment:currentDirectory:)`` on the calling thread; for code already off the
    /// cooperative pool only.
    static func runBlocking(_ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = executable!
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes concurrently so a full pipe never blocks the child.
        let errData = LockedData()
        let group = DispatchGroup()
        // A thread of its own: a read that blocks for the child's whole life must not hold one of
        // Dispatch's few global worker threads (the pipeline's decode queue needs them).
        group.enter()
        Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()); group.leave() }.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        return Outcome(status: LoopbackHTTP.waitForExit(process),
                       stdout: String(decoding: outData, as: UTF8.self),
                       stderr: String(decoding: errData.get(), as: UTF8.self))
    }
}

extension BinaryRunner {
    /// A `pictor` process left running while the test acts on it (a signal, a server stopped).
    final class Running: Sendable {
        let process: Process
        private let out = Pipe(), err = Pipe()

        init(_ arguments: [String]) throws {
            process = Process()
            process.executableURL = BinaryRunner.executable!
            process.arguments = arguments
            process.standardOutput = out
            process.standardError = err
            try process.run()
        }

        /// Waits until `lines` lines are in the report at `path` (at most two minutes), then runs
        /// `action` at once (a signal, a server stopped), both on a thread of its own: on a
        /// loaded machine the cooperative pool can be busy with other tests for seconds, and a
        /// task polling there (or resumed there before acting) would wake only after a run of a
        /// few seconds had ended.
        func whenReport(_ path: URL, hasLines lines: Int, _ action: @escaping @Sendable () throws -> Void) async throws {
            try await offPool {
                let deadline = Date().addingTimeInterval(120)
                while Date() < deadline, ((try? String(contentsOf: path, encoding: .utf8))?.split(separator: "\n").count ?? 0) < lines {
                    usleep(20_000)
                }
                try action()
            }
        }

        /// Waits for the process to end and returns what it printed.
        func finish() async throws -> Outcome {
            try await offPool { [out, err, process] in
                let errData = LockedData()
                let group = DispatchGroup()
                group.enter()
                Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()); group.leave() }.start()
                let data = out.fileHandleForReading.readDataToEndOfFile()
                group.wait()
                return Outcome(status: LoopbackHTTP.waitForExit(process), stdout: String(decoding: data, as: UTF8.self),
                               stderr: String(decoding: errData.get(), as: UTF8.self))
            }
        }
    }
}

final class LockedData: Sendable {
    private let data = Mutex(Data())
    func set(_ d: Data) { data.withLock { $0 = d } }
    func get() -> Data { data.withLock { $0 } }
}

/// In CI (`CI=true`) the CLI's tests must run against the built binary, never skip for lack of it.
@Suite struct CIRequirementsCLITests {
    @Test(.enabled(if: TestRequirements.isCI, "only in CI (CI=true)"))
    func thePictorBinaryIsBuilt() {
        #expect(BinaryRunner.isAvailable, "CI: the pictor executable is missing beside the tests (swift build --build-tests builds it)")
    }
}
