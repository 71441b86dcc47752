import Foundation
import Pictor

/// `pictor cache stats|list|has|rm|pin|unpin|trim|clear|verify|rekey|key generate`.
enum CacheCommand {
    /// The subcommands, in the order the overview lists them.
    static let subcommands = ["stats", "list", "has", "rm", "pin", "unpin", "trim", "clear", "verify", "rekey", "key"]

    static let help = """
    USAGE: pictor cache <subcommand> [options]

    Operates the on-disk cache (plain or encrypted). Entries are listed by digest:
    the cache stores no URL, and an encrypted cache's names are keyed hashes that
    reveal nothing. An encrypted cache opens only with its own key (--key-file); a
    plain one only without a key.

    SUBCOMMANDS:
      stats                 entry count, size, pinned entries, limits,
                            last-access range, formats; with --shared-cache,
                            the Redis tier too
      list                  entries, least recently used first
      has URL...            whether the cache holds each URL's original
      rm URL...             remove each URL's original and every variant
      pin URL...            keep each URL's original past the size and age
                            limits
      unpin URL...          let the limits evict it again
      trim                  remove expired, then least recently used entries
      clear                 remove every entry
      verify                re-read every entry; remove and list bad ones
      rekey                 switch the cache to a new key (entries are dropped)
      key generate          write a new random 256-bit key file

    OPTIONS:
    \(OptionHelp.block(CLICommandOptions.cache.options))

    'pictor cache <subcommand> --help' shows a subcommand's options and an
    example.
    """

    /// Each subcommand's `--help`: usage, what it does, its options, an example.
    static func help(for sub: String) -> String? {
        guard let declared = CLICommandOptions.cacheSubcommand(sub) else { return nil }
        let options = OptionHelp.block(declared.options)
        switch sub {
        case "stats":
            return """
            USAGE: pictor cache stats [--size-limit BYTES] [--shared-cache URL] [options]

            Prints the cache's directory, whether it is encrypted, its entry count
            and size, its pinned entries and their size, its limits, where the size
            limit comes from (--size-limit, or the default: 10 % of the free space
            on the cache's file system plus what the cache holds, kept within
            1 GiB...16 GiB), the range of last-access times
            and the image formats.
            With a shared tier: Redis's memory, eviction policy and key count, and
            the fleet's counters (reads, leases, waits, stores, errors).

            OPTIONS:
            \(options)

            EXAMPLE:
              pictor cache stats --cache-dir /var/cache/pictor --key-file pictor.key
            """
        case "list":
            return """
            USAGE: pictor cache list [--limit N] [options]

            Lists entries, least recently used first, one per line: digest, bytes,
            format, last access and expiry (tab-separated). With --limit, how many
            more there are goes to standard error.

            OPTIONS:
            \(options)

            EXAMPLE:
              pictor cache list --limit 20
            """
        case "has":
            return """
            USAGE: pictor cache has <url>... [options]

            Prints, for each URL, 'yes' or 'no' and the URL: whether the cache holds
            its original. Exit 0 when all are there, 1 otherwise (also when there is
            no cache at all). Give the --cache-key-ignore-query names that the run
            which stored it gave.

            OPTIONS:
            \(options)

            EXAMPLE:
              pictor cache has https://example.org/a.jpg
            """
        case "rm":
            return """
            USAGE: pictor cache rm <url>... [--original-only]
                   [--resize W|WxH|Wx|xH [--fit F]] [options]

            Removes each URL's original and every variant the cache made from it
            (resized copies, encoded results), whatever their size or format. With
            --original-only, removes the original alone and, with --resize, the
            resized copy that 'fetch' or 'prefetch' with the same --resize and --fit
            kept. Give the --cache-key-ignore-query names that the run which stored
            it gave. Exit 73 when the cache is read-only (nothing is removed).

            OPTIONS:
            \(options)

            EXAMPLE:
              pictor cache rm https://example.org/a.jpg
            """
        case "pin", "unpin":
            return """
            USAGE: pictor cache \(sub) <url>... [options]

            'pin' keeps each URL's original in the cache: trimming by size and by
            age never removes it. Its bytes still count against the size limit, so
            other entries are trimmed harder (when pinned entries alone exceed the
            limit, they stay and a warning says so). 'unpin' lets the limits evict
            it again. 'cache stats' shows the pinned entries. A pin goes with its
            entry ('cache rm', 'cache clear'). Exit 1 when a URL is not cached
            (the others are still \(sub)ned), 73 when there is no cache or it is
            read-only.

            OPTIONS:
            \(options)

            EXAMPLE:
              pictor cache \(sub) https://example.org/logo.png
            """
        case "trim":
            return """
            USAGE: pictor cache trim [--size-limit BYTES] [--max-age AGE] [options]

            Removes expired entries and entries unused for longer than the maximum
            age, then least recently used ones until the cache is under its size
            limit.

            OPTIONS:
            \(options)

            EXAMPLE:
              pictor cache trim --size-limit 500M --max-age 7d
            """
        case "clear":
            return """
            USAGE: pictor cache clear [--force] [options]

            Removes every entry.

            OPTIONS:
            \(options)

            EXAMPLE:
              pictor cache clear --force --key-file new.key
            """
        case "verify":
            return """
            USAGE: pictor cache verify [options]

            Re-reads every entry. Bad ones (unreadable, truncated, wrong key,
            stored under another entry's name; in an encrypted cache, any change)
            are removed and listed by digest; index rows without a file and files
            without a row are removed and counted. A plain entry's contents carry
            no checksum: bytes changed in place are not found. Exit 1 when any
            was found.

            OPTIONS:
            \(options)

            EXAMPLE:
              pictor cache verify --key-file pictor.key
            """
        case "rekey":
            return """
            USAGE: pictor cache rekey --new-key-file FILE [options]

            Switches the cache to a new key (with --key-file naming the current key;
            without it, turns encryption on). Entries are DROPPED, not re-encrypted:
            their names are keyed hashes of URLs the cache never stores, so they
            cannot be renamed under the new key, and keeping them would keep the
            old key useful. They are fetched again when next needed. The key the
            cache already has changes nothing.

            OPTIONS:
            \(options)

            EXAMPLE:
              pictor cache rekey --key-file old.key --new-key-file new.key
            """
        case "key":
            return """
            USAGE: pictor cache key generate --out FILE

            Writes a new random 256-bit key (64 hex digits) to FILE, with mode 0600.
            FILE must not exist: a key is never overwritten.

            OPTIONS:
            \(options)

            EXAMPLE:
              pictor cache key generate --out pictor.key
            """
        default:
            return nil
        }
    }

    static func run(_ arguments: [String], context: CommandContext) async throws -> Int32 {
        var args = arguments
        guard let sub = args.first else {
            throw CLIError.usage("missing cache subcommand (\(subcommands.joined(separator: ", ")))")
        }
        args.removeFirst()
        if sub == "-h" || sub == "--help" { context.console.print(help); return ExitCode.success }
        var parser = ArgumentParser(args, declared: CLICommandOptions.cacheSubcommand(sub)?.options ?? [.help])
        if parser.flag(.help) {
            guard let text = help(for: sub) else { throw CLIError.usage("unknown cache subcommand '\(sub)'") }
            context.console.print(text)
            return ExitCode.success
        }
        switch sub {
        case "key":
            return try KeyCommand.run(&parser, context: context)
        case "stats", "list", "trim", "clear", "verify", "rekey":
            return try await CacheMaintenance.run(sub, &parser, context: context)
        case "has", "rm", "pin", "unpin":
            return try CacheEntryCommands.run(sub, &parser, context: context)
        default:
            throw CLIError.usage("unknown cache subcommand '\(sub)'")
        }
    }
}

/// `pictor cache key generate --out FILE`.
enum KeyCommand {
    static func run(_ parser: inout ArgumentParser, context: CommandContext) throws -> Int32 {
        let out = try parser.option(.keyOutput)
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
