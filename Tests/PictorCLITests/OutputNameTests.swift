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

    @Test(arguments: [("{w}", "256.webp"), ("{index}", "3.webp"), ("{stem}-small", "Beach_Day-small.webp"),
                      ("{w}x{h}.", "256x171.webp"), ("{stem}.{ext}", "Beach_Day.webp"), ("{ext}-{w}", "webp-256"),
                      ("{stem}.webp", "Beach_Day.webp")])
    func aTemplateWithoutAnExtensionGetsTheOutputFormats(template: String, expected: String) throws {
        #expect(try NameTemplate.parse(template).render(values()) == expected)
    }

    @Test(arguments: [".{ext}", ".{stem}.png", ".hidden-{index}"])
    func aTemplateNamingAHiddenFileIsRefused(_ text: String) {
        #expect(throws: CLIError.self) { try NameTemplate.parse(text) }
        do {
            _ = try NameTemplate.parse(text)
        } catch {
            #expect("\(error)".contains("hidden"), "\(error)")
        }
    }

    @Test func aTemplateThatCannotFitInAFileNameIsRefusedUpFront() {
        let long = String(repeating: "a", count: 240) + "-{hash}.{ext}"
        #expect(throws: CLIError.self) { try NameTemplate.parse(long) }
        do {
            _ = try NameTemplate.parse(long)
        } catch {
            #expect("\(error)".contains("255 bytes"), "\(error)")
        }
        // A long template that fits is fine
        #expect(throws: Never.self) { try NameTemplate.parse(String(repeating: "a", count: 150) + "-{hash}.{ext}") }
    }

    @Test func aLongStemIsCutSoThatEveryNameFits() throws {
        // 80 three-byte letters, four times: the stems are cut, never the rest of the name
        let url = URL(string: "https://example.org/" + String(repeating: "写", count: 100) + ".jpg")!
        let template = try NameTemplate.parse("{stem}{stem}{stem}{stem}-{hash}.{ext}")
        let name = template.render(.init(url: url, index: 1, format: .jpeg, width: 1, height: 1))
        #expect(name.utf8.count <= NameTemplate.longestName, "\(name.utf8.count) bytes")
        #expect(OutputNaming.suffixed(name, with: OutputNaming.tag(url, 16)).utf8.count <= 255)
        #expect(name.hasSuffix("-\(String(SHA256.hexDigest(url.absoluteString).prefix(12))).jpg"), "\(name)")
        #expect(name.hasPrefix("写写写"))
        // So do the default names, even with a collision suffix of 16 hex digits
        let plain = OutputNaming.defaultName(for: url, format: .jpeg)
        #expect(OutputNaming.suffixed(plain, with: OutputNaming.tag(url, 16)).utf8.count <= 255, "\(plain)")
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

    @Test func aTemplateOfOnePlaceholderGetsTheExtensionAndOneStartingWithADashWorks() async throws {
        let out = try makeTemporaryDirectory("name-ext")
        defer { try? FileManager.default.removeItem(at: out) }
        let (code, console) = await runPictor(["prefetch"] + images + ["--no-cache", "-q", "--out", out.path, "--name", "{index}"])
        #expect(code == 0, "\(console.errors)")
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: out.path)) == ["1.png", "2.png"])
        let (dash, dashConsole) = await runPictor(["fetch", images[0], "--no-cache", "-o", out.path, "--name", "-{stem}.{ext}"])
        #expect(dash == 0, "\(dashConsole.errors)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("-basn2c08.png").path))
        let hidden = await runPictor(["fetch", images[0], "--no-cache", "-o", out.path, "--name", ".{ext}"])
        #expect(hidden.0 == 64)
        #expect(hidden.1.errors.contains("hidden"), "\(hidden.1.errors)")
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
