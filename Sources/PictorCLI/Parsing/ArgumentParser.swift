import Foundation

/// A small command-line parser: flags, options with values, and positionals, in any order.
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

    /// Every option and flag of every command (a help-text test keeps the list complete).
    static let knownOptions: Set<String> = [
        "-h", "--help", "--version",
        "-o", "--out", "--output", "--name", "--format", "--quality", "--json", "-q", "--quiet",
        "--resize", "--fit", "-H", "--header", "--no-cache-thumbnails", "--concurrency", "--data-only", "--report",
        "--cache-dir", "--key-file", "--no-cache", "--cache-policy", "--size-limit", "--max-age", "--shared-cache",
        "--limit", "--force", "--new-key-file",
    ]

    /// Whether `token`, after an option that needs a value, is an option rather than the value.
    static func isOption(_ token: String) -> Bool {
        if knownOptions.contains(token) { return true }
        guard token.hasPrefix("--") else { return false }
        let name = token.split(separator: "=", maxSplits: 1).first.map(String.init) ?? token
        if knownOptions.contains(name) { return true }
        // `--word…`: an option pictor does not have (a typo), not a value.
        return token.dropFirst(2).first?.isLetter == true
    }

    init(_ arguments: [String]) {
        tokens = arguments
        optionEnd = arguments.firstIndex(of: "--") ?? arguments.count
        if optionEnd < arguments.count { consumed.insert(optionEnd) }
    }

    /// Whether any of `names` is present (consumes every occurrence).
    mutating func flag(_ names: String...) -> Bool {
        var found = false
        for i in 0..<optionEnd where !consumed.contains(i) && names.contains(tokens[i]) {
            consumed.insert(i)
            found = true
        }
        return found
    }

    /// The value of the last occurrence of an option, or `nil` when absent.
    /// - Throws: ``CLIError/usage(_:)`` when the option has no value.
    mutating func option(_ names: String...) throws -> String? {
        try values(names).last
    }

    /// The values of every occurrence of a repeatable option, in order.
    /// - Throws: ``CLIError/usage(_:)`` when an occurrence has no value.
    mutating func options(_ names: String...) throws -> [String] {
        try values(names)
    }

    private mutating func values(_ names: [String]) throws -> [String] {
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

    /// An integer option within `range`.
    /// - Throws: ``CLIError/usage(_:)`` naming the bad value.
    mutating func intOption(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw CLIError.usage("invalid value '\(text)' for '\(name)': expected an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
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
