import Foundation
import Pictor
import Testing
@testable import PictorCLI

/// What the README and the DocC articles say about the CLI and the package matches the code.
@Suite struct DocumentationConsistencyTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: BinaryRunner.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The top-level keys of the JSON objects `--json` prints: an image that was written, one
    /// that failed, and a summary with a fleet.
    static var jsonKeys: Set<String> {
        var ok = ImageJob.Result(url: URL(string: "https://example.org/a.jpg")!, status: .ok)
        ok.width = 1
        ok.outputPath = "thumbs/a.jpg"
        let failed = ImageJob.Result(url: ok.url, status: .failed("HTTP 404"))
        let summary = PrefetchSummary(results: [ok, failed], elapsed: 1, fleet: SharedCacheStatistics())
        var keys: Set<String> = []
        for line in [JSONOutput.line(JSONOutput.ImageRecord(ok)), JSONOutput.line(JSONOutput.ImageRecord(failed)),
                     JSONOutput.line(JSONOutput.SummaryRecord(summary))] {
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
            keys.formUnion(object.keys)
        }
        return keys
    }

    @Test(arguments: ["README.md", "Sources/Pictor/Pictor.docc/CommandLineTool.md"])
    func theJSONExampleShowsEveryField(_ path: String) throws {
        let text = try Self.text(path)
        #expect(Self.jsonKeys.count > 20)
        for key in Self.jsonKeys.sorted() {
            #expect(text.contains("\"\(key)\":"), "\(path) does not show \"\(key)\"")
        }
    }

    /// The newest released heading is the version `--version` prints. Above it, changes not yet
    /// released may gather under `### <a later version> (unreleased)`; the release renames that
    /// heading and sets ``PictorVersion/current`` in one commit.
    @Test func theChangelogsNewestVersionIsTheVersionPrinted() throws {
        let readme = try Self.text("README.md")
        let changelog = try #require(readme.range(of: "## Changelog"))
        var headings = readme[changelog.upperBound...].split(separator: "\n").filter { $0.hasPrefix("### ") }[...]
        if let next = headings.first, next.hasSuffix(" (unreleased)") {
            let version = next.dropFirst("### ".count).dropLast(" (unreleased)".count).split(separator: ".").compactMap { Int($0) }
            let current = PictorVersion.current.split(separator: ".").compactMap { Int($0) }
            #expect(current.lexicographicallyPrecedes(version), "\(next) is not after \(PictorVersion.current)")
            headings = headings.dropFirst()
        }
        let heading = try #require(headings.first)
        #expect(heading.hasPrefix("### \(PictorVersion.current):"), "\(heading)")
        #expect(!heading.contains("unreleased"), "\(heading)")
        #expect(PictorCommand.version == PictorVersion.current)
    }

    @Test func gettingStartedDependsOnThePackageAsTheREADMEDoes() throws {
        let article = try Self.text("Sources/Pictor/Pictor.docc/GettingStarted.md")
        #expect(article.contains(".package(name: \"Pictor\", path:"))
        #expect(article.contains("package: \"Pictor\")"))
        #expect(!article.contains("name of the folder"))
        #expect(try Self.text("README.md").contains(".package(name: \"Pictor\", path:"))
    }

    @Test func theREADMEGivesBothQualityDefaults() throws {
        let readme = try Self.text("README.md")
        #expect(readme.contains("`--quality`\n    defaults to 85 in the CLI"), "the CLI's default, where the option is described")
        #expect(readme.contains("the library's `VipsEncoder.defaultQuality` (80)"))
        #expect(FetchCommand.help.contains("--quality Q           1...100 for lossy formats (default 85)"))
        #expect(PrefetchCommand.help.contains("(default 85)"))
    }
}
