import Foundation

/// The OPTIONS section of a `--help`, made from the command's ``CLIOption`` declarations: each
/// option's label, then its help text wrapped into a column, at most 80 columns in all.
enum OptionHelp {
    /// The widest line of any help text, in characters (`×` and `…` take one column each).
    static let width = 80

    /// `options`' lines: the label indented by two spaces, the text from `column` on (on the
    /// label's line when the label leaves room for a space before it, else on the lines after).
    static func block(_ options: [CLIOption], column: Int = 24) -> String {
        options.flatMap { lines($0, column: column) }.joined(separator: "\n")
    }

    static func lines(_ option: CLIOption, column: Int) -> [String] {
        let label = "  " + option.label
        let indent = String(repeating: " ", count: column)
        let text = wrap(option.helpText, width: width - column)
        guard label.count < column else { return [label] + text.map { indent + $0 } }
        let first = label + String(repeating: " ", count: column - label.count) + (text.first ?? "")
        return [first] + text.dropFirst().map { indent + $0 }
    }

    /// `text`'s words in lines of at most `width` characters (a longer word has a line of its
    /// own); words joined by ``CLIOption/glue`` stay on one line.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.map { $0.replacingOccurrences(of: CLIOption.glue, with: " ") }
    }
}
