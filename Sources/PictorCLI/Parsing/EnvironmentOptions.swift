import Foundation

/// Options given in the environment: `PICTOR_` and the long name in capitals, `-` as `_`
/// (`--allow-source` is `PICTOR_ALLOW_SOURCE`). An option on the command line wins over its
/// variable: the variable is read only when the command line does not name the option at all.
///
/// - A flag's variable is `1`, `true`, `yes` or `on` to set it; `0`, `false`, `no`, `off` or
///   empty to leave it unset.
/// - A repeatable option's variable is a comma-separated list (`PICTOR_KEY=k1,k2`, as
///   imgproxy's `IMGPROXY_KEY`), each item one occurrence.
/// - Any other option's variable is its value; an empty one is ignored.
enum EnvironmentOptions {
    /// The variable of `option`: `PICTOR_LISTEN` for `--listen`.
    static func variable(for option: CLIOption) -> String {
        "PICTOR_" + option.longName.drop { $0 == "-" }.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The options of `options` whose values `merge` takes from `environment` (those the
    /// command line does not name), each with its variable: `--workers` → `PICTOR_WORKERS`.
    static func supplied(_ arguments: [String], options: [CLIOption], environment: [String: String]) -> [(option: String, variable: String)] {
        fromEnvironment(arguments, options: options, environment: environment).map { ($0.option.longName, $0.variable) }
    }

    /// The one rule of both: each option of `options` but `--help` that `arguments` (before a
    /// `--`) do not name, as `--name`, `-n` or `--name=value`, and whose variable is set.
    private static func fromEnvironment(_ arguments: [String], options: [CLIOption], environment: [String: String])
        -> [(option: CLIOption, variable: String, text: String)] {
        let optionTokens = arguments.prefix { $0 != "--" }
        return options.compactMap { option in
            let variable = variable(for: option)
            guard option != .help, let text = environment[variable] else { return nil }
            let named = optionTokens.contains { token in
                option.allNames.contains { token == $0 || ($0.hasPrefix("--") && token.hasPrefix($0 + "=")) }
            }
            return named ? nil : (option, variable, text)
        }
    }

    /// `error` naming the variable an option's value came from: a usage error about
    /// `'--workers'` whose value was `PICTOR_WORKERS`'s reads `PICTOR_WORKERS (--workers)`, so
    /// that an operator looks in the unit's environment, not at a command line without it.
    static func attributed(_ error: CLIError, to supplied: [(option: String, variable: String)]) -> CLIError {
        guard case .usage(var message) = error else { return error }
        for (option, variable) in supplied {
            message = message.replacingOccurrences(of: "'\(option)'", with: "\(variable) (\(option))")
        }
        return .usage(message)
    }

    /// `arguments` with the options of `options` that they do not name added from
    /// `environment` (before them, as `--name=value`, so a value starting with `-` stays a
    /// value).
    ///
    /// - Throws: ``CLIError/usage(_:)`` for a flag's variable that is not a yes or a no.
    static func merge(_ arguments: [String], options: [CLIOption], environment: [String: String]) throws -> [String] {
        var added: [String] = []
        for (option, variable, text) in fromEnvironment(arguments, options: options, environment: environment) {
            guard option.value != nil else {
                switch text.lowercased() {
                case "1", "true", "yes", "on": added.append(option.longName)
                case "0", "false", "no", "off", "": break
                default: throw CLIError.usage("invalid value '\(text)' for \(variable): expected 1 or 0")
                }
                continue
            }
            let values = option.repeatable
                ? text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                : (text.isEmpty ? [] : [text])
            added += values.map { "\(option.longName)=\($0)" }
        }
        return added + arguments
    }
}
