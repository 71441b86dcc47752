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

    /// CHANGELOG.md's newest released version is the version `--version` prints. Above it,
    /// changes not yet released may gather under `## [<a later version>] - Unreleased`; the
    /// release gives that heading its date and sets ``PictorVersion/current`` in one commit.
    /// Every version heading has the Keep a Changelog form `## [x.y.z] - YYYY-MM-DD`, and each
    /// section under it is one of its six kinds.
    @Test func theChangelogsNewestVersionIsTheVersionPrinted() throws {
        let lines = try Self.text("CHANGELOG.md").split(separator: "\n")
        #expect(lines.first == "# Changelog")
        var headings = lines.filter { $0.hasPrefix("## ") }[...]
        let released = /## \[(\d+)\.(\d+)\.(\d+)\] - \d{4}-\d{2}-\d{2}/
        for heading in headings.dropFirst() {
            #expect(heading.wholeMatch(of: released) != nil, "\(heading)")
        }
        if let next = headings.first, next.hasSuffix("] - Unreleased") {
            let version = next.dropFirst("## [".count).dropLast("] - Unreleased".count).split(separator: ".").compactMap { Int($0) }
            let current = PictorVersion.current.split(separator: ".").compactMap { Int($0) }
            #expect(version.count == 3 && current.lexicographicallyPrecedes(version), "\(next) is not after \(PictorVersion.current)")
            headings = headings.dropFirst()
        }
        let heading = try #require(headings.first)
        #expect(heading.hasPrefix("## [\(PictorVersion.current)] - "), "\(heading)")
        #expect(heading.wholeMatch(of: released) != nil, "\(heading)")
        #expect(PictorCommand.version == PictorVersion.current)
        let kinds: Set<Substring> = ["### Added", "### Changed", "### Deprecated", "### Removed", "### Fixed", "### Security"]
        for section in lines where section.hasPrefix("### ") {
            #expect(kinds.contains(section), "\(section)")
        }
        // The README points to it and keeps no changelog of its own.
        let readme = try Self.text("README.md")
        #expect(readme.contains("(CHANGELOG.md)"))
        #expect(!readme.contains("## Changelog") && !readme.contains("(unreleased)"))
    }

    /// GitHub's anchor of a heading: lower case, punctuation dropped, spaces as `-`.
    static func anchor(_ heading: Substring) -> String {
        String(heading.lowercased().compactMap { c -> Character? in
            if c == " " { return "-" }
            return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : nil
        })
    }

    /// Every relative link of the Markdown pages leads to a file of the repository, and every
    /// `#anchor` to a heading of the page it names.
    @Test(arguments: ["README.md", "CHANGELOG.md", "docs/architecture.md", "docs/benchmarks.md", "docs/sanitizers.md"])
    func relativeLinksLeadSomewhere(_ path: String) throws {
        let text = try Self.text(path)
        let folder = (path as NSString).deletingLastPathComponent
        for match in text.matches(of: /\]\(([^)\s]+)\)/) {
            let target = String(match.1)
            if target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:") { continue }
            let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            let file = parts[0].isEmpty ? path : (folder as NSString).appendingPathComponent(String(parts[0]))
            let url = BinaryRunner.packageRoot.appendingPathComponent(file)
            #expect(FileManager.default.fileExists(atPath: url.path), "\(path): \(target): no such file")
            if parts.count == 2, file.hasSuffix(".md") {
                let page = try Self.text(file)
                let anchors = page.split(separator: "\n").filter { $0.hasPrefix("#") }
                    .map { Self.anchor($0.drop(while: { $0 == "#" }).dropFirst()) }
                #expect(anchors.contains(String(parts[1])), "\(path): \(target): no such heading")
            }
        }
    }

    @Test func gettingStartedInstallsEveryBuildPackageThatBootstrapDoes() throws {
        let bootstrap = try Self.text("scripts/bootstrap.sh")
        let start = try #require(bootstrap.range(of: "BUILD=(")).upperBound
        var packages: [String] = []
        for line in bootstrap[start...].split(separator: "\n") {
            if line.trimmingCharacters(in: .whitespaces) == ")" { break }
            let name = line.split(separator: "#").first.map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
            if !name.isEmpty { packages.append(name) }
        }
        #expect(packages.count > 5)
        let article = try Self.text("Sources/Pictor/Pictor.docc/GettingStarted.md")
        let words = Set(article.split { $0 == " " || $0 == "\n" || $0 == "\\" }.map(String.init))
        for package in packages {
            #expect(words.contains(package), "GettingStarted's apt-get line lacks \(package)")
        }
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
