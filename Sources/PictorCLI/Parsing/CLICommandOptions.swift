/// A command and the options it takes, in the order its `--help` lists them: where an option
/// applies. The parser of a command reads only these (``ArgumentParser``), its help lists
/// exactly these (``OptionHelp``), and the README's tables say which command takes which.
struct CLICommandOptions: Sendable {
    /// The command as typed after `pictor`: `fetch`, `cache trim`; empty for `pictor` itself.
    let command: String
    /// Its options, in help order.
    let options: [CLIOption]

    /// The options `cache` and each of its subcommands but `key` take: the cache to open.
    static let cacheOptions: [CLIOption] = [.cacheDirectory, .keyFile]

    /// The options `fetch`, `prefetch` and `serve` take after their own: how the caches are used.
    static let loadingCacheOptions: [CLIOption] =
        cacheOptions + [.cachePolicy, .cacheKeyIgnoreQuery, .sizeLimit, .maxAge, .noCache, .sharedCache, .help]

    /// The options `fetch` and `prefetch` take after their own: which servers to trust, and the
    /// client certificate to show them (``TLSOption``).
    static let tlsOptions: [CLIOption] = [.caFile, .caPath, .clientCertificate, .clientKey]

    static let pictor = CLICommandOptions(command: "", options: [.topLevelHelp, .version])
    static let fetch = CLICommandOptions(command: "fetch", options: [
        .resize, .fit, .header, .noCacheThumbnails, .strictDecoding, .fetchOutput, .name, .format, .quality, .previews, .json,
        .quiet, .offline,
    ] + tlsOptions + loadingCacheOptions)
    static let prefetch = CLICommandOptions(command: "prefetch", options: [
        .concurrency, .resize, .fit, .header, .noCacheThumbnails, .strictDecoding, .prefetchOutput, .name, .prefetchFormat,
        .prefetchQuality, .dataOnly, .report, .prefetchJSON, .prefetchQuiet, .offline,
    ] + tlsOptions + loadingCacheOptions)
    /// `serve` takes the CAs but no client certificate: its `--key` is a URL signing key.
    static let serve = CLICommandOptions(command: "serve", options: [
        .listen, .workers, .signingKey, .signingSalt, .insecureUnsigned, .allowSource, .allowPrivateNetwork,
        .maxSourceBytes, .maxSourcePixels, .autoFormat, .presets, .presetsOnly, .requestTimeout, .ttl,
        .maxConnections, .maxConnectionsPerIP, .headerTimeout, .drainTimeout, .logFormat, .caFile, .caPath,
    ] + loadingCacheOptions)
    static let cache = CLICommandOptions(command: "cache", options: cacheOptions + [.help])

    /// Each `cache` subcommand's options: its own, then the cache's (`key` opens no cache).
    static let cacheSubcommands: [CLICommandOptions] = {
        let own: [(subcommand: String, options: [CLIOption])] = [
            ("stats", [.statsSizeLimit, .sharedCache]), ("list", [.limit]), ("has", [.cacheKeyIgnoreQuery]),
            ("rm", [.originalOnly, .resize, .fit, .cacheKeyIgnoreQuery]),
            ("pin", [.cacheKeyIgnoreQuery]), ("unpin", [.cacheKeyIgnoreQuery]),
            ("trim", [.trimSizeLimit, .trimMaxAge]), ("clear", [.force]), ("verify", []), ("rekey", [.newKeyFile]),
        ]
        return own.map { CLICommandOptions(command: "cache " + $0.subcommand, options: $0.options + cacheOptions + [.help]) }
            + [CLICommandOptions(command: "cache key generate", options: [.keyOutput, .help])]
    }()

    /// Every command's options.
    static let all: [CLICommandOptions] = [pictor, fetch, prefetch, serve, cache] + cacheSubcommands

    /// The options of `cache <subcommand>`, or `nil` for a subcommand `cache` does not have.
    static func cacheSubcommand(_ subcommand: String) -> CLICommandOptions? {
        cacheSubcommands.first { $0.command == "cache " + subcommand || $0.command.hasPrefix("cache \(subcommand) ") }
    }

    /// Every spelling of every option of every command: what the parser never takes for a value.
    static let allNames: Set<String> = Set(all.flatMap { $0.options.flatMap(\.allNames) })
}
