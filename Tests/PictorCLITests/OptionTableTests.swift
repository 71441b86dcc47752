import Foundation
import Testing
@testable import PictorCLI

/// The option declarations are the one source: the README's and the DocC article's option tables
/// are rendered from them, and every command accepts each option it declares.
@Suite struct OptionTableTests {
    static let documents = ["README.md", "Sources/Pictor/Pictor.docc/CommandLineTool.md"]

    /// The text between `table`'s markers in `document`, or `nil` when it has no such table.
    static func shown(_ table: OptionTable, in document: String) -> String? {
        guard let start = document.range(of: table.startMarker + "\n"),
              let end = document.range(of: "\n" + OptionTable.endMarker, range: start.upperBound..<document.endIndex)
        else { return nil }
        return String(document[start.upperBound..<end.lowerBound])
    }

    @Test(arguments: documents)
    func eachOptionTableIsRenderedFromTheDeclarations(_ path: String) throws {
        let document = try DocumentationConsistencyTests.text(path)
        let tables = OptionTable.all.filter { document.contains($0.startMarker) }
        // A marker with a name no table has would leave its table unchecked.
        #expect(document.components(separatedBy: "<!-- options table:").count - 1 == tables.count, "\(path): unknown table marker")
        #expect(document.components(separatedBy: OptionTable.endMarker).count - 1 == tables.count, "\(path): unpaired end marker")
        for table in tables {
            let shown = try #require(Self.shown(table, in: document), "\(path): '\(table.name)' has no end marker")
            #expect(shown == table.markdown, "\(path): the table '\(table.name)' is not the declarations'; it should read:\n\(table.markdown)")
        }
    }

    @Test func theREADMEShowsEveryTableAndTheArticleTheLoadingOptions() throws {
        let readme = try DocumentationConsistencyTests.text("README.md")
        for table in OptionTable.all {
            let shown = readme.contains(table.startMarker)
            #expect(shown, "README.md has no table '\(table.name)'")
        }
        let article = try DocumentationConsistencyTests.text(Self.documents[1])
        let shown = article.contains(OptionTable.all[0].startMarker)
        #expect(shown, "\(Self.documents[1]) has no table '\(OptionTable.all[0].name)'")
    }

    @Test func aTableListsEachWordingOnceWithItsCommands() {
        let markdown = OptionTable.all[0].markdown
        #expect(markdown.contains("| `--resize W\\|WxH\\|Wx\\|xH` | `fetch`, `prefetch` | fit inside a W×W box"), "\(markdown)")
        #expect(markdown.contains("| `-o, --output FILE\\|DIR` | `fetch` |"))
        #expect(markdown.contains("| `--out DIR` | `prefetch` |"))
        #expect(markdown.contains("(default 10 % of the free space on the cache's file system plus what the cache holds, kept within 1 GiB...16 GiB) |"),
                "a no-break space is a space in Markdown")
        #expect(!markdown.contains("--help"))
        let cache = OptionTable.all[1].markdown
        #expect(cache.contains("| `--cache-dir DIR` | all but `key generate` |"), "\(cache)")
        #expect(cache.contains("| `--limit N` | `list` | list at most N entries (default all) |"), "\(cache)")
    }

    /// A value each grammar accepts.
    static func example(_ grammar: CLIOption.Grammar) -> String {
        switch grammar {
        case .text: "value"
        case .integer(let range): "\(range.lowerBound)"
        case .bytes: "1M"
        case .duration: "1d"
        case .oneOf(let words): words[0]
        case .outputFormat: "png"
        case .resizeBox: "8"
        case .nameTemplate: "{stem}"
        case .header: "X-Test: 1"
        case .redisURL: "redis://127.0.0.1:1"
        }
    }

    /// Every spelling of every option each command declares, with a value in its grammar: the
    /// command reads it (an option declared but not read would be an unknown option). An extra
    /// argument makes each command stop with a usage error before it does any work.
    @Test(arguments: CLICommandOptions.all.filter { !$0.command.isEmpty })
    func everyCommandReadsEachOptionItDeclares(_ command: CLICommandOptions) async {
        for option in command.options where option != .help {
            for spelling in option.allNames {
                let words: [String] = option.value.map { [spelling, Self.example($0.grammar)] } ?? [spelling]
                let args = command.command.split(separator: " ").map(String.init).filter { $0 != "generate" }
                    + words + ["no-such-argument"]
                let (code, console) = await runPictor(args)
                #expect(code == 64, "\(args)")
                #expect(!console.errors.contains("unknown option"), "\(args): \(console.errors)")
                #expect(!console.errors.contains("missing value"), "\(args): \(console.errors)")
            }
        }
    }

    /// The words a `oneOf` grammar declares are the ones its option takes.
    @Test func eachDeclaredWordIsAccepted() async {
        for option in CLICommandOptions.fetch.options {
            guard case .oneOf(let words)? = option.value?.grammar else { continue }
            for word in words {
                let (code, console) = await runPictor(["fetch", "--resize", "8", option.longName, word, "no-such-argument"])
                #expect(code == 64)
                #expect(console.errors.contains("invalid URL 'no-such-argument'"), "\(option.longName) \(word): \(console.errors)")
            }
        }
    }
}
