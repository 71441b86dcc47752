import Foundation
import Testing
@testable import PictorCLI

/// Every help text: its own for each command and cache subcommand, at most 80 columns wide.
@Suite struct HelpTextTests {
    /// Every way of asking for help, and the bare command (its usage on standard error).
    static let helpCommands: [[String]] = [[], ["--help"], ["-h"], ["help"], ["fetch", "--help"], ["prefetch", "--help"], ["serve", "--help"],
                                           ["cache", "--help"], ["help", "cache", "trim"], ["cache", "key", "generate", "--help"]]
        + CacheCommand.subcommands.map { ["cache", $0, "--help"] }

    @Test(arguments: helpCommands)
    func everyLineFitsIn80Columns(_ args: [String]) async {
        let (code, console) = await runPictor(args)
        #expect(code == (args.isEmpty ? 64 : 0), "\(args)")
        let text = console.output + console.errors
        #expect(text.contains("USAGE"), "\(args)")
        // Characters, not bytes: '×', '→' and '…' take one column each.
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) where line.count > 80 {
            Issue.record("\(args): \(line.count) columns: \(line)")
        }
    }

    @Test(arguments: CacheCommand.subcommands)
    func eachCacheSubcommandHasItsOwnHelpWithAnExample(_ sub: String) async throws {
        let (code, console) = await runPictor(["cache", sub, "--help"])
        #expect(code == 0)
        let usage = try #require(console.output.split(separator: "\n").first)
        #expect(usage.hasPrefix("USAGE: pictor cache \(sub)"), "\(usage)")
        #expect(console.output.contains("OPTIONS:"))
        #expect(console.output.contains("-h, --help"))
        #expect(console.output.contains("EXAMPLE:\n  pictor cache \(sub)"), "\(console.output)")
        #expect(!console.output.contains("SUBCOMMANDS:"), "not the overview")
    }

    @Test func trimsHelpNamesItsOwnOptions() async {
        let (_, console) = await runPictor(["cache", "trim", "--help"])
        #expect(console.output.contains("--size-limit BYTES"))
        #expect(console.output.contains("--max-age AGE"))
        #expect(!console.output.contains("--new-key-file"))
    }

    /// An option's text starts in its column, on the label's line when the label leaves room, and
    /// words joined by a no-break space are never split across lines.
    @Test func optionTextIsWrappedIntoItsColumn() {
        let fit = OptionHelp.lines(.fit, column: 24)
        #expect(fit[0] == "  --fit inside|cover|fill", "the label is wider than the column: its text starts below")
        #expect(fit.dropFirst().allSatisfy { $0.hasPrefix(String(repeating: " ", count: 24)) && $0.count <= 80 }, "\(fit)")
        let quality = OptionHelp.lines(.quality, column: 24)
        #expect(quality == ["  --quality Q           1...100 for lossy formats (default 85)"])
        #expect(OptionHelp.wrap("a b\u{00A0}c", width: 3) == ["a", "b c"])
    }

    /// A usage error points to the help of the command that was misused, not the overview.
    @Test(arguments: [
        (["fetch", "--bogus"], "pictor fetch"), (["prefetch", "--resize", "0", "x"], "pictor prefetch"),
        (["serve", "--workers", "0"], "pictor serve"), (["cache", "rm"], "pictor cache rm"),
        (["cache", "trimm"], "pictor cache"), (["frobnicate"], "pictor"),
    ])
    func usageErrorsPointToTheirCommandsHelp(_ args: [String], _ command: String) async {
        let (code, console) = await runPictor(args)
        #expect(code == 64, "\(args): \(console.errors)")
        #expect(console.errors.hasSuffix("Run '\(command) --help' for usage.\n"), "\(args): \(console.errors)")
    }

    @Test func anUnknownSubcommandsHelpIsAUsageError() async {
        let (code, console) = await runPictor(["cache", "trimm", "--help"])
        #expect(code == 64)
        #expect(console.errors.contains("'trimm'"))
    }
}
