import Foundation

/// A small command-line parser: flags, options with values, and positionals, in any order.
///
/// A command reads its options by their ``CLIOption`` declarations, which say every spelling
/// and whether a value follows; it may read only the options it declares (``CLICommandOptions``),
/// so that its `--help`, made from the same list, names every option it takes.
///
/// `--name value` and `--name=value` are both accepted; `--` ends option parsing. A value given
/// as the next token may start with `-` (`--size-limit -1`, `--name '-{stem}.{ext}'`, `-o -`),
/// so that the option's own check names it, unless it is one of pictor's options
/// (``knownOptions``) or looks like a long option (`--word`): `-o --cache-dir X` is a missing
/// value, never a file named "--cache-dir" (`--name=--x` passes such a value). Anything that
/// starts with `-` and was not consumed is reported as an unknown option, naming the token.
struct ArgumentParser {
    private var tokens: [String]
    private var consumed: Set<Int> = []
    private let optionEnd: Int
    private let declared: [CLIOption]

    /// Every spelling of every option and flag of every command: never taken for a value.
    static let knownOptions: Set<String> = CLICommandOptions.allNames

    /// Whether `token`, after an option that needs a value, is an option rather than the value.
    static func isOption(_ token: String) -> Bool {
        if knownOptions.contains(token) { return true }
        guard token.hasPrefix("--") else { return false }
        let name = token.split(separator: "=", maxSplits: 1).first.map(String.init) ?? token
        if knownOptions.contains(name) { return true }
        // `--word…`: an option pictor does not have (a typo), not a value.
        return token.dropFirst(2).first?.isLetter == true
    }

    /// A parser of `arguments` for a command that takes `declared`.
    init(_ arguments: [String], declared declaredOptions: [CLIOption]) {
        tokens = arguments
        declared = declaredOptions
        optionEnd = arguments.firstIndex(of: "--") ?? arguments.count
        if optionEnd < arguments.count { consumed.insert(optionEnd) }
    }

    /// Whether the flag is present (consumes every occurrence).
    mutating func flag(_ option: CLIOption) -> Bool {
        check(option, takesValue: false)
        var found = false
        for i in 0..<optionEnd where !consumed.contains(i) && option.allNames.contains(tokens[i]) {
            consumed.insert(i)
            found = true
        }
        return found
    }

    /// The value of the option's last occurrence, or `nil` when absent.
    /// - Throws: ``CLIError/usage(_:)`` when the option has no value.
    mutating func option(_ option: CLIOption) throws -> String? {
        try values(option).last
    }

    /// The values of every occurrence of a repeatable option, in order.
    /// - Throws: ``CLIError/usage(_:)`` when an occurrence has no value.
    mutating func options(_ option: CLIOption) throws -> [String] {
        assert(option.repeatable, "\(option.label) is not declared repeatable: its help would not say so")
        return try values(option)
    }

    /// An integer option, within the range its grammar declares.
    /// - Throws: ``CLIError/usage(_:)`` naming the bad value.
    mutating func intOption(_ option: CLIOption) throws -> Int? {
        guard case .integer(let range)? = option.value?.grammar else {
            preconditionFailure("\(option.label) is not declared an integer")
        }
        guard let text = try self.option(option) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            let expected = range.upperBound == Int.max
                ? "an integer of at least \(range.lowerBound)" : "an integer in \(range.lowerBound)...\(range.upperBound)"
            throw CLIError.usage("invalid value '\(text)' for '\(option.longName)': expected \(expected)")
        }
        return value
    }

    /// A command reads only what it declares, as what it declares says: a flag as a flag, an
    /// option with a value as such. A mistake here is the code's, found by any test that runs
    /// the command.
    private func check(_ option: CLIOption, takesValue: Bool) {
        assert(declared.contains(option), "\(option.label) is read but not among the command's declared options")
        assert((option.value != nil) == takesValue, "\(option.label) is read as a \(takesValue ? "value" : "flag")")
    }

    private mutating func values(_ option: CLIOption) throws -> [String] {
        check(option, takesValue: true)
        let names = option.allNames
        var values: [String] = []
        var i = 0
        while i < optionEnd {
            defer { i += 1 }
            guard !consumed.contains(i) else { continue }
            let token = tokens[i]
            if let name = names.first(where: { token.hasPrefix($0 + "=") && $0.hasPrefix("--") }) {
                consumed.insert(i)
                values.append(String(token.dropFirst(name.count + 1)))
            } else if names.contains(token) {
                consumed.insert(i)
                // `-o --cache-dir X` is a missing value, not a file named "--cache-dir"; `-1` is a
                // value, for the option's own check to accept or name.
                guard i + 1 < optionEnd, !consumed.contains(i + 1), !Self.isOption(tokens[i + 1]) else {
                    throw CLIError.usage("missing value for '\(token)'")
                }
                values.append(tokens[i + 1])
                consumed.insert(i + 1)
                i += 1
            }
        }
        return values
    }

    /// The remaining tokens, in order.
    /// - Throws: ``CLIError/usage(_:)`` naming the first unknown option.
    mutating func positionals() throws -> [String] {
        var out: [String] = []
        for (i, token) in tokens.enumerated() where !consumed.contains(i) {
            if i < optionEnd, token.hasPrefix("-"), token != "-" {
                throw CLIError.usage("unknown option '\(token)'")
            }
            out.append(token)
        }
        return out
    }
}
