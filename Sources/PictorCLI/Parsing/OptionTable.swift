import Foundation

/// An option table of the documentation (the README, the DocC article), rendered from the
/// ``CLIOption`` declarations: one row per option and wording, with the commands that take it.
/// A test compares each table with the text between its markers,
/// `<!-- options table: NAME -->` and `<!-- end of options table -->`, so the documents cannot
/// drift from what the parser and the help say.
struct OptionTable: Sendable {
    /// The name in the table's marker.
    let name: String
    /// The heading of the column that names the commands.
    let commandsHeading: String
    /// What to drop from a command's name in that column (`cache ` for the subcommands).
    let commandPrefix: String
    /// The commands whose options the table lists.
    let commands: [CLICommandOptions]

    /// The README's tables (the DocC article shows some of them too).
    static let all: [OptionTable] = [
        OptionTable(name: "fetch and prefetch", commandsHeading: "command", commandPrefix: "",
                    commands: [.fetch, .prefetch]),
        OptionTable(name: "cache", commandsHeading: "subcommand", commandPrefix: "cache ",
                    commands: CLICommandOptions.cacheSubcommands),
        OptionTable(name: "serve", commandsHeading: "command", commandPrefix: "", commands: [.serve]),
    ]

    /// The line before the table in a document.
    var startMarker: String { "<!-- options table: \(name) -->" }
    /// The line after the table in a document.
    static let endMarker = "<!-- end of options table -->"

    /// The table in Markdown (GitHub's and DocC's tables), without the markers. Options appear in
    /// the order the commands list them; `-h, --help`, which every command takes, is left out.
    var markdown: String {
        var rows: [(option: CLIOption, commands: [String])] = []
        for command in commands {
            let name = String(command.command.dropFirst(commandPrefix.count))
            for option in command.options where option != .help {
                if let row = rows.firstIndex(where: { $0.option == option }) {
                    rows[row].commands.append(name)
                } else if let sibling = rows.lastIndex(where: { Set($0.option.allNames) == Set(option.allNames) }) {
                    // Another wording of an option already listed goes beside it.
                    rows.insert((option, [name]), at: sibling + 1)
                } else {
                    rows.append((option, [name]))
                }
            }
        }
        var lines = ["| option | \(commandsHeading) | what it does |", "| --- | --- | --- |"]
        for row in rows {
            lines.append("| `\(Self.cell(row.option.label))` | \(commandsCell(row.commands)) | \(Self.cell(row.option.helpText)) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The commands of a row: all of them, all but one, or each by name.
    private func commandsCell(_ names: [String]) -> String {
        let every = commands.map { String($0.command.dropFirst(commandPrefix.count)) }
        if every.count > 2, names == every { return "all" }
        if every.count > 2, names.count == every.count - 1, let other = every.first(where: { !names.contains($0) }) {
            return "all but `\(other)`"
        }
        return names.map { "`\($0)`" }.joined(separator: ", ")
    }

    /// `text` for a table cell: a `|` would end the cell.
    private static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: CLIOption.glue, with: " ")
    }
}
