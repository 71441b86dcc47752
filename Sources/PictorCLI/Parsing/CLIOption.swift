/// One command-line option, declared once: its names, its value's grammar, what the help says
/// about it, and its default.
///
/// ``ArgumentParser`` takes its known options and which of them take a value from these
/// declarations, every `--help` lists a command's declarations (``OptionHelp``), and the README's
/// option tables are rendered from them and compared in a test, so the three cannot disagree.
/// The declarations themselves are in `CLIOption+Table.swift`; each command lists the ones it
/// takes (``CLICommandOptions``).
struct CLIOption: Hashable, Sendable {
    /// The names the help shows, in order: `["-o", "--output"]`.
    let names: [String]
    /// Further spellings the parser accepts, which the summary names in words (`(--out too)`).
    let aliases: [String]
    /// The value, or `nil` for a flag.
    let value: Value?
    /// What the option does, as one paragraph: the help wraps it, the README keeps it on one
    /// line. A no-break space (``glue``) keeps two words on one line of the help.
    let summary: String
    /// The default, shown after the summary as `(default …)`; `nil` when there is none, or when
    /// the summary says it in its own words.
    let defaultValue: String?
    /// Whether every occurrence counts (`-H`), rather than the last; the help says so.
    let repeatable: Bool

    /// An option's value: what the help calls it, and whose grammar it follows.
    struct Value: Hashable, Sendable {
        /// The placeholder after the names in the help: `FILE`, `W|WxH|Wx|xH`.
        let placeholder: String
        /// The value's grammar, and so the code that reads it.
        let grammar: Grammar
    }

    /// The grammar of a value. Where it is an option's own, the case names the code that owns it,
    /// and that code is the only place that reads it.
    enum Grammar: Hashable, Sendable {
        /// Any text (a path, a URL), which the command checks.
        case text
        /// An integer in this range, checked by ``ArgumentParser/intOption(_:)``.
        case integer(ClosedRange<Int>)
        /// A byte count, `500M` or `1.5GiB`: ``Formatting/parseBytes(_:option:)``.
        case bytes
        /// A duration, `7d` or `90m`: ``Formatting/parseDuration(_:option:)``.
        case duration
        /// One of these words; the command's parsing of the option refuses any other.
        case oneOf([String])
        /// An output format's name: ``OutputFormatOption/parse(_:)``.
        case outputFormat
        /// A box, `W`, `WxH`, `Wx` or `xH`: ``ResizeOption/parse(_:fit:)``.
        case resizeBox
        /// A file name template: ``NameTemplate/parse(_:)``.
        case nameTemplate
        /// A request header, `'Name: value'`: ``HeaderOption/parse(_:)``.
        case header
        /// A Redis URL: ``SharedCacheOption/open(key:connections:)``.
        case redisURL
    }

    /// Joins two words that the help must not put on two lines (`150 MiB`); shown as a space.
    static let glue = "\u{00A0}"

    /// Every spelling the parser accepts.
    var allNames: [String] { names + aliases }

    /// The long name the parser's messages use: `--output` for `-o, --output`.
    var longName: String { allNames.first { $0.hasPrefix("--") } ?? names[0] }

    /// The names and placeholder as the help shows them: `-o, --output FILE|DIR`.
    var label: String {
        names.joined(separator: ", ") + (value.map { " " + $0.placeholder } ?? "")
    }

    /// The summary with what the help adds to it: `(repeatable)` and `(default …)`.
    var helpText: String {
        var text = summary
        if repeatable { text += " (repeatable)" }
        if let defaultValue { text += " (default\(Self.glue)\(defaultValue))" }
        return text
    }

    /// This option with another summary: the same option, described for another command.
    func saying(_ summary: String, default defaultValue: String? = nil) -> CLIOption {
        CLIOption(
            names: names, aliases: aliases, value: value, summary: summary,
            defaultValue: defaultValue ?? self.defaultValue, repeatable: repeatable)
    }
}

extension CLIOption {
    /// A flag, or an option with a value of `placeholder` in `grammar`.
    init(
        _ names: [String], also aliases: [String] = [], value placeholder: String? = nil, grammar: Grammar = .text,
        repeatable: Bool = false, default defaultValue: String? = nil, _ summary: String
    ) {
        self.names = names
        self.aliases = aliases
        self.value = placeholder.map { Value(placeholder: $0, grammar: grammar) }
        self.summary = summary
        self.defaultValue = defaultValue
        self.repeatable = repeatable
    }
}
