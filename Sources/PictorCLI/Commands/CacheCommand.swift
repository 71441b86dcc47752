import Foundation
import Pictor

/// `pictor cache stats|list|has|rm|trim|clear|verify|rekey|key generate`.
enum CacheCommand {
    static let help = """
    USAGE: pictor cache <subcommand> [options]

    Operates the on-disk cache (plain or encrypted). Entries are listed by digest: the cache
    stores no URL, and an encrypted cache's names are keyed hashes that reveal nothing. An
    encrypted cache opens only with its own key (--key-file); a plain one only without a key.

    SUBCOMMANDS:
      stats [--shared-cache URL]
                            entry count, total size, limits, last-access range, formats; with a shared
                            tier, its Redis memory and eviction policy and the fleet's hit counters
      list [--limit N]      entries, least recently used first: digest, bytes, format, last access, expiry
      trim [--size-limit BYTES] [--max-age AGE]
                            remove expired entries, then least recently used ones down to the limit
      clear [--force]       remove every entry; --force also clears a cache encrypted under a key you no
                            longer have (its entries are discarded, and it is reset to --key-file's key, or
                            to plain without one)
      verify                re-read every entry; bad ones (unreadable, wrong key, tampered) are removed
                            and listed; exit 1 when any was found
      rekey --new-key-file FILE
                            switch the cache to a new key (with --key-file naming the current key; without
                            it, turns encryption on). Entries are DROPPED, not re-encrypted: their names are
                            keyed hashes of URLs the cache never stores, so they cannot be renamed under the
                            new key, and keeping them would keep the old key useful. They are fetched again.
    \(CacheEntryCommands.help)
      key generate --out FILE
                            write a new random 256-bit key (hex) to FILE with mode 0600

    OPTIONS:
    \(CacheOptions.help)
      -h, --help            show this help
    """

    static func run(_ arguments: [String], context: CommandContext) async throws -> Int32 {
        var args = arguments
        guard let sub = args.first else { throw CLIError.usage("missing cache subcommand (stats, list, has, rm, trim, clear, verify, rekey, key)") }
        args.removeFirst()
        if sub == "-h" || sub == "--help" { context.console.print(help); return ExitCode.success }
        var parser = ArgumentParser(args)
        if parser.flag("-h", "--help") { context.console.print(help); return ExitCode.success }
        switch sub {
        case "key":
            return try KeyCommand.run(&parser, context: context)
        case "stats", "list", "trim", "clear", "verify", "rekey":
            return try await CacheMaintenance.run(sub, &parser, context: context)
        case "has", "rm":
            return try CacheEntryCommands.run(sub, &parser, context: context)
        default:
            throw CLIError.usage("unknown cache subcommand '\(sub)'")
        }
    }
}

/// `pictor cache key generate --out FILE`.
enum KeyCommand {
    static func run(_ parser: inout ArgumentParser, context: CommandContext) throws -> Int32 {
        let out = try parser.option("--out", "-o")
        let rest = try parser.positionals()
        guard rest == ["generate"] else {
            throw CLIError.usage(rest.isEmpty ? "missing 'generate'" : "unknown key subcommand '\(rest[0])'")
        }
        guard let out else { throw CLIError.usage("missing '--out FILE'") }
        if FetchCommand.isDirectory(out) {
            throw CLIError.usage("'\(out)' is a directory; '--out' names the key file to create")
        }
        if FileManager.default.fileExists(atPath: out) {
            throw CLIError.failure("'\(out)' exists; refusing to overwrite a key")
        }
        do {
            try EncryptionKey.generate().write(toFile: out)
        } catch {
            throw CLIError.failure("cannot write key to '\(out)': \(error)")
        }
        context.console.print("wrote a new 256-bit key to \(out) (mode 0600); keep it safe: without it the cache cannot be read")
        return ExitCode.success
    }
}
