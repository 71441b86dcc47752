import Foundation
import Pictor

/// The `pictor` command: dispatches to its subcommands.
///
/// Exit codes: 0 success, 1 a failure (at least one image failed, a URL not cached for `cache
/// has`, bad entries found by `cache verify`, or the command failed), 64 bad arguments (the
/// offending token is named on standard error), 73 the disk cache cannot be used
/// (``CLIError/cacheUnavailable(_:)``), 130 interrupted.
public enum PictorCommand {
    /// The version printed by `pictor --version`.
    public static let version = PictorVersion.current

    static let usage = """
    pictor \(version) — fetch, thumbnail and cache images through Pictor's pipeline

    USAGE: pictor <command> [options]

    COMMANDS:
      fetch <url>...            fetch images (memory → disk cache → network),
                                optionally resize and save them
      prefetch <file|url>...    warm the cache with many URLs, with progress and a
                                summary
      serve [options]           serve images over HTTP in imgproxy's URL format,
                                through the caches
      cache <subcommand>        operate the on-disk cache: stats, list, has, rm,
                                pin, unpin, trim, clear, verify, rekey, key
      help [<command>...]       show help; 'pictor help cache trim' is
                                'pictor cache trim --help'

    OPTIONS:
    \(OptionHelp.block(CLICommandOptions.pictor.options, column: 28))

    Default cache directory: $XDG_CACHE_HOME/pictor (when absolute), else
    ~/.cache/pictor.
    Exit codes: 0 ok, 1 a failure, 64 bad arguments, 69 with --offline, every
    failure an image not cached, 73 the disk cache cannot be used (none there,
    unreadable, not a Pictor cache, a wrong or unusable key file, read-only when it
    must be written), 130 interrupted.
    """

    /// Runs `pictor` with `arguments` (without the program name) and returns the exit code.
    ///
    /// - Parameters:
    ///   - arguments: the command line after the program name.
    ///   - console: where output goes (standard streams by default).
    ///   - environment: the process environment (for `XDG_CACHE_HOME`, `HOME`, key variables).
    public static func run(
        _ arguments: [String], console: Console = .standard,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async -> Int32 {
        var args = arguments
        guard let command = args.first else {
            console.error(usage)
            return ExitCode.usage
        }
        args.removeFirst()
        let context = CommandContext(console: console, environment: environment)
        do {
            switch command {
            case "help" where !args.isEmpty:
                // `pictor help fetch` = `pictor fetch --help`; `pictor help cache trim` = `pictor cache trim --help`
                return await run(args + ["--help"], console: console, environment: environment)
            case "-h", "--help", "help":
                console.print(usage)
                return ExitCode.success
            case "--version":
                console.print(version)
                return ExitCode.success
            case "fetch":
                return try await FetchCommand.run(args, context: context)
            case "prefetch":
                return try await PrefetchCommand.run(args, context: context)
            case "serve":
                return try await ServeCommand.run(args, context: context)
            case "cache":
                return try await CacheCommand.run(args, context: context)
            default:
                throw CLIError.usage("unknown command '\(command)'")
            }
        } catch let error as CLIError {
            console.error("pictor: error: \(error)")
            if case .usage = error { console.error("Run '\(helpCommand(command, args)) --help' for usage.") }
            return error.exitCode
        } catch {
            console.error("pictor: error: \(error)")
            return ExitCode.failure
        }
    }
}

/// The command whose help answers a usage error in `command args…`: the subcommand's when it
/// is one (`pictor cache rm`), the command's when it is known, else `pictor`'s.
func helpCommand(_ command: String, _ args: [String]) -> String {
    switch command {
    case "fetch", "prefetch", "serve":
        return "pictor \(command)"
    case "cache":
        if let sub = args.first, CacheCommand.subcommands.contains(sub) { return "pictor cache \(sub)" }
        return "pictor cache"
    default:
        return "pictor"
    }
}

/// What every command receives: its console and environment.
struct CommandContext: Sendable {
    let console: Console
    let environment: [String: String]

    /// `$XDG_CACHE_HOME/pictor`, else `~/.cache/pictor`, from this command's environment.
    var defaultCacheDirectory: URL { DiskCache.defaultDirectory(environment: environment) }
}
