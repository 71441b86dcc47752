import Foundation
import Testing
@testable import PictorCLI
import Pictor
import PictorTestSupport

/// `--name TEMPLATE`, parsed and rendered.
@Suite struct NameTemplateTests {
    let url = URL(string: "https://example.org/photos/Beach%20Day.jpeg?size=large")!

    func values(index: Int = 3) -> NameTemplate.Values {
        .init(url: url, index: index, format: .webp, width: 256, height: 171)
    }

    @Test func everyPlaceholderIsReplaced() throws {
        let name = try NameTemplate.parse("{index}_{stem}-{w}x{h}.{hash}.{ext}").render(values())
        let hash = String(SHA256.hexDigest(url.absoluteString).prefix(12))
        #expect(name == "3_Beach_Day-256x171.\(hash).webp")
    }

    @Test(arguments: ["{size}", "{stem}-{W}", "{}", "a{stem"])
    func anUnknownPlaceholderOrAnUnclosedBraceIsAUsageErrorNamingIt(_ text: String) {
        #expect(throws: CLIError.self) { try NameTemplate.parse(text) }
        do {
            _ = try NameTemplate.parse(text)
        } catch {
            #expect("\(error)".contains("'\(text)'"), "\(error)")
            if text == "{size}" { #expect("\(error)".contains("unknown placeholder '{size}'")) }
        }
    }

    @Test(arguments: ["../{stem}.{ext}", "a/b.png", "{stem}/x", "..", ".", "", "}{stem}"])
    func pathsAndNonNamesAreRefused(_ text: String) {
        #expect(throws: CLIError.self) { try NameTemplate.parse(text) }
    }

    @Test func theExtensionAfterTheLastPlaceholderSetsTheFormat() throws {
        #expect(try NameTemplate.parse("{stem}.webp").literalExtension == "webp")
        #expect(try NameTemplate.parse("{stem}.{ext}").literalExtension == nil)
        #expect(try NameTemplate.parse("{stem}-small").literalExtension == nil)
        #expect(throws: CLIError.self) { try NameTemplate.parse("{stem}.txt").checkExtension(explicitFormat: nil) }
        try NameTemplate.parse("{stem}.txt").checkExtension(explicitFormat: .png)
    }

    @Test func twoURLsGivenOneNameNeverShareAFile() throws {
        let naming = OutputNaming(template: try NameTemplate.parse("{stem}.{ext}"))
        let a = URL(string: "https://a.example/x.jpg")!, b = URL(string: "https://b.example/x.jpg")!
        func name(_ url: URL) throws -> String {
            try naming.name(.init(url: url, index: 1, format: .png, width: 1, height: 1))
        }
        #expect(try name(a) == "x.png")
        #expect(try name(b) == "x-\(OutputNaming.tag(b, 8)).png", "the default names' suffix")
        #expect(try name(a) == "x.png", "the same URL again keeps its name")
    }

    @Test func theDefaultNameIsUnchanged() {
        let url = URL(string: "https://example.org/a/b.jpg")!
        #expect(OutputNaming.defaultName(for: url, format: .jpeg) == "b-\(String(SHA256.hexDigest(url.absoluteString).prefix(8))).jpg")
    }
}

/// `--name` end to end, on `file:` images.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: corpusPNGSuite.path)), .timeLimit(.minutes(5)))
struct OutputNameTests {
    let images = ["basn2c08.png", "basn0g08.png"].map { corpusPNGSuite.appendingPathComponent($0).path }

    @Test func prefetchNamesFilesByTheTemplate() async throws {
        let out = try makeTemporaryDirectory("name")
        defer { try? FileManager.default.removeItem(at: out) }
        let (code, console) = await runPictor(["prefetch"] + images + ["--no-cache", "-q", "--resize", "16",
                                         "--out", out.path, "--name", "{index}-{stem}-{w}x{h}.{ext}"])
        #expect(code == 0, "\(console.errors)")
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: out.path)) == ["1-basn2c08-16x16.png", "2-basn0g08-16x16.png"])
    }

    @Test func aLiteralExtensionSetsTheFormatAndFetchTakesNameToo() async throws {
        let out = try makeTemporaryDirectory("name-fetch")
        defer { try? FileManager.default.removeItem(at: out) }
        let (code, console) = await runPictor(["fetch", images[0], "--no-cache", "-o", out.appendingPathComponent("new").path,
                                         "--name", "{stem}-{hash}.webp", "--json"])
        #expect(code == 0, "\(console.errors)")
        let hash = String(SHA256.hexDigest(URL(fileURLWithPath: images[0]).absoluteString).prefix(12))
        let file = out.appendingPathComponent("new/basn2c08-\(hash).webp")
        #expect(ImageFormat.sniff(try Data(contentsOf: file)) == .webp)
        #expect(console.output.contains(file.lastPathComponent))
    }

    @Test func twoURLsMappedToOneNameAreBothWrittenWithAWarning() async throws {
        let out = try makeTemporaryDirectory("name-collision")
        defer { try? FileManager.default.removeItem(at: out) }
        let (code, console) = await runPictor(["prefetch"] + images + ["--no-cache", "-q", "--concurrency", "1",
                                         "--out", out.path, "--name", "same.png"])
        #expect(code == 0, "\(console.errors)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(files.count == 2, "\(files)")
        #expect(files.contains("same.png"))
        #expect(console.errors.contains("'same.png' was already written for another URL"), "\(console.errors)")
    }

    @Test func badTemplatesAreUsageErrorsBeforeAnyWork() async throws {
        let out = try makeTemporaryDirectory("name-bad")
        defer { try? FileManager.default.removeItem(at: out) }
        let unknown = await runPictor(["prefetch", images[0], "--no-cache", "--out", out.path, "--name", "{stem}-{width}.png"])
        #expect(unknown.0 == 64)
        #expect(unknown.1.errors.contains("unknown placeholder '{width}'"), "\(unknown.1.errors)")
        let path = await runPictor(["prefetch", images[0], "--no-cache", "--out", out.path, "--name", "../{stem}.png"])
        #expect(path.0 == 64)
        let noDirectory = await runPictor(["prefetch", images[0], "--no-cache", "--name", "{stem}.png"])
        #expect(noDirectory.0 == 64)
        #expect(noDirectory.1.errors.contains("'--name' needs an output directory"))
        let badExtension = await runPictor(["fetch", images[0], "--no-cache", "-o", out.path, "--name", "{stem}.txt"])
        #expect(badExtension.0 == 64)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
    }
}
