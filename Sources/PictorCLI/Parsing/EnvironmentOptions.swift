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

    /// `arguments` with the options of `options` that they do not name added from
    /// `environment` (before them, as `--name=value`, so a value starting with `-` stays a
    /// value).
    ///
    /// - Throws: ``CLIError/usage(_:)`` for a flag's variable that is not a yes or a no.
    static func merge(_ arguments: [String], options: [CLIOption], environment: [String: String]) throws -> [String] {
        let optionTokens = arguments.prefix { $0 != "--" }
        var added: [String] = []
        for option in options where option != .help {
            let variable = variable(for: option)
            guard let text = environment[variable] else { continue }
            let named = optionTokens.contains { token in
                option.allNames.contains { token == $0 || ($0.hasPrefix("--") && token.hasPrefix($0 + "=")) }
            }
            if named { continue }
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
