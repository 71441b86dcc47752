import Foundation
import PictorTestSupport
import Testing

/// Animations cut short through the CLI: frame 0 is written instead of a failure, nothing of
/// them is cached, a GIF lacking only its trailer is whole (and cached), and
/// `--strict-decoding` fails as before. Inputs are corpus files cut in a temporary directory.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct TruncatedAnimationCLITests {
    /// The cut files, each named for how it was cut.
    static func makeInputs(in root: URL) throws {
        let gif = try Data(contentsOf: sharedCorpus.appendingPathComponent("pillow/iss634.gif"))
        let webp = try Data(contentsOf: sharedCorpus.appendingPathComponent("pillow/iss634.webp"))
        try gif.dropLast().write(to: root.appendingPathComponent("no-trailer.gif"))
        try gif.prefix(gif.count - 2000).write(to: root.appendingPathComponent("cut-last-frame.gif"))
        try gif.prefix(gif.count / 2).write(to: root.appendingPathComponent("cut-half.gif"))
        try webp.prefix(webp.count * 6 / 10).write(to: root.appendingPathComponent("cut.webp"))
    }

    static let cutNames = ["cut-last-frame.gif", "cut-half.gif", "cut.webp"]

    @Test func fetchWritesFrameZeroOfACutAnimationAndStrictDecodingFails() async throws {
        guard FileManager.default.fileExists(atPath: sharedCorpus.path) else { return }
        let root = try makeTemporaryDirectory("cut-animations")
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.makeInputs(in: root)
        for name in Self.cutNames + ["no-trailer.gif"] {
            let input = root.appendingPathComponent(name).path
            let output = root.appendingPathComponent(name + ".png").path
            let (code, console) = await runPictor(["fetch", input, "-o", output, "--no-cache"])
            #expect(code == 0, "\(name): \(console.errors)")
            #expect(console.output.contains("245×245"), "\(name): \(console.output)")
            #expect(console.output.contains("cut short") == (name != "no-trailer.gif"), "\(name): \(console.output)")
            let written = try Data(contentsOf: URL(fileURLWithPath: output))
            #expect(written.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(name): a PNG is written")

            let (strict, strictConsole) = await runPictor(["fetch", input, "-o", output + "-strict.png", "--no-cache", "--strict-decoding"])
            if name == "no-trailer.gif" {
                #expect(strict == 0, "a GIF lacking only its trailer is whole: \(strictConsole.errors)")
            } else {
                #expect(strict == 1, "\(name)")
                #expect(strictConsole.errors.contains("truncated"), "\(name): \(strictConsole.errors)")
                #expect(!FileManager.default.fileExists(atPath: output + "-strict.png"))
            }
        }
    }

    @Test func aCutAnimationIsDownloadedEveryTimeAndAWholeOneOnce() async throws {
        guard FileManager.default.fileExists(atPath: sharedCorpus.path), NginxServer.isAvailable else { return }
        let root = try makeTemporaryDirectory("cut-animations-origin")
        let cache = root.path + "-cache"
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(atPath: cache)
        }
        try Self.makeInputs(in: root)
        let server = try await offPool { try NginxServer.start(root: root, extraServerConfig: "location / { expires 1h; }") }
        defer { server.stop() }
        let list = root.appendingPathComponent("urls.txt")
        let names = Self.cutNames + ["no-trailer.gif"]
        try names.map { server.url("/" + $0).absoluteString }.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        for run in 1...2 {
            let (code, console) = await runPictor(["prefetch", list.path, "--cache-dir", cache])
            #expect(code == 0, "run \(run): \(console.output) \(console.errors)")
            let (fetchCode, fetchConsole) = await runPictor(["fetch", server.url("/cut-half.gif").absoluteString, "--cache-dir", cache])
            #expect(fetchCode == 0 && fetchConsole.output.contains("network"), "run \(run): \(fetchConsole.output) \(fetchConsole.errors)")
        }
        for name in Self.cutNames {
            #expect(try server.requestCount(path: "/" + name) == (name == "cut-half.gif" ? 4 : 2), "\(name) is never cached")
        }
        #expect(try server.requestCount(path: "/no-trailer.gif") == 1, "a GIF lacking only its trailer is cached")
        let (listCode, listConsole) = await runPictor(["cache", "list", "--cache-dir", cache])
        #expect(listCode == 0)
        #expect(!listConsole.output.contains("cut"), "\(listConsole.output)")
    }
}
