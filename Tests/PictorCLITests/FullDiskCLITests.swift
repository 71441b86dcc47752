import Foundation
import PictorTestSupport
import Testing

/// A cache on a real, full file system (a tmpfs, so root only; skipped otherwise): `prefetch`
/// delivers every image from the network with one warning, and `cache stats`, `list` and
/// `verify` work on it.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct FullDiskCLITests {
    /// Whether this process may mount a tmpfs (checked once, by mounting and unmounting one).
    static let canMount: Bool = {
        guard getuid() == 0, let directory = try? makeTemporaryDirectory("mount-probe") else { return false }
        defer { try? FileManager.default.removeItem(at: directory) }
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", directory.path]) else { return false }
        return run("/bin/umount", [directory.path])
    }()

    static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        return LoopbackHTTP.waitForExit(process) == 0
    }

    @Test(.enabled(if: canMount && NginxServer.isAvailable, "needs root to mount a tmpfs, and nginx"))
    func aFullFileSystemNeverStopsDelivery() async throws {
        let root = try makeTemporaryDirectory("full-disk-origin")
        let mount = try makeTemporaryDirectory("full-disk-mount")
        defer {
            _ = Self.run("/bin/umount", ["-l", mount.path])
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: mount)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: corpusPNGSuite.path).filter { $0.hasPrefix("basn") }.sorted()
        for name in names { try FileManager.default.copyItem(at: corpusPNGSuite.appendingPathComponent(name), to: root.appendingPathComponent(name)) }
        #expect(Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mount.path]))
        let server = try await offPool { try NginxServer.start(root: root, extraServerConfig: "location / { expires 1h; }") }
        defer { server.stop() }
        let cache = mount.path + "/cache"
        // One image cached while there is room, then the file system filled to the last byte.
        let (warm, warmConsole) = await runPictor(["fetch", server.url("/" + names[0]).absoluteString, "--cache-dir", cache])
        #expect(warm == 0, "\(warmConsole.errors)")
        #expect(FileManager.default.createFile(atPath: mount.path + "/filler", contents: nil))
        let filler = try #require(FileHandle(forWritingAtPath: mount.path + "/filler"))
        let block = Data(count: 4096)
        while (try? filler.write(contentsOf: block)) != nil {}
        try? filler.close()

        let list = root.appendingPathComponent("urls.txt")
        try names.map { server.url("/" + $0).absoluteString }.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let (code, console) = await runPictor(["prefetch", list.path, "--cache-dir", cache])
        #expect(code == 0, "\(console.output) \(console.errors)")
        let warnings = console.errors.split(separator: "\n").filter { $0.contains("pictor[warning]") }
        #expect(warnings.count == 1, "\(console.errors)")
        #expect(try server.requestCount(path: "/" + names[0]) == 1, "what the cache holds is served from it")
        for name in names.dropFirst() { #expect(try server.requestCount(path: "/" + name) == 1, "\(name) from the network") }
        for subcommand in ["stats", "list", "verify"] {
            let (status, output) = await runPictor(["cache", subcommand, "--cache-dir", cache])
            #expect(status == 0, "cache \(subcommand): \(output.output) \(output.errors)")
        }
    }
}
