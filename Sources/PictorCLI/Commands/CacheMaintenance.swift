import Foundation
import Pictor

/// `pictor cache stats|list|trim|clear|verify|rekey`: work on an opened ``DiskCache``.
enum CacheMaintenance {
    static func run(_ sub: String, _ parser: inout ArgumentParser, context: CommandContext) async throws -> Int32 {
        let options = try CacheOptions.parse(&parser, context: context, allowsNoCache: false)
        let limit = sub == "list" ? try parser.intOption(.limit) : nil
        let sizeLimit = ["trim", "stats"].contains(sub)
            ? try parser.option(sub == "trim" ? .trimSizeLimit : .statsSizeLimit).map { try Formatting.parseBytes($0, option: "--size-limit") }
            : nil
        let maxAge = sub == "trim" ? try parser.option(.trimMaxAge).map { Int(try Formatting.parseDuration($0, option: "--max-age").rounded(.up)) } : nil
        let newKeyFile = sub == "rekey" ? try parser.option(.newKeyFile) : nil
        let force = sub == "clear" ? parser.flag(.force) : false
        let shared = sub == "stats" ? try SharedCacheOption.parse(&parser, context: context) : SharedCacheOption()
        let extra = try parser.positionals()
        if let first = extra.first { throw CLIError.usage("unexpected argument '\(first)'") }
        if sub == "rekey" && newKeyFile == nil { throw CLIError.usage("missing '--new-key-file FILE'") }

        let console = context.console
        if sub == "stats", shared.url != nil {
            // The fleet's tier alone when this host has no local cache.
            if FileManager.default.fileExists(atPath: options.directory.path) {
                try options.checkIsCacheDirectory()
                let diskLimit = CacheSizeLimit.resolve(explicit: sizeLimit, directory: options.directory)
                let cache = try open(options, context: context, sizeLimit: diskLimit, maxAge: nil)
                defer { cache.flush() }
                printStats(cache, limit: diskLimit, console: console)
            } else {
                console.print("directory:   \(options.directory.path) (none on this host)")
            }
            return try await printSharedStats(shared, key: try options.loadKey(), console: console)
        }
        if sub == "clear", !FileManager.default.fileExists(atPath: options.directory.path) {
            console.print("no cache at \(options.directory.path); nothing to clear")
            return ExitCode.success
        }
        // These need a cache to look at or change: none is a cache that cannot be used (73).
        if ["stats", "list", "verify", "rekey", "trim"].contains(sub), !FileManager.default.fileExists(atPath: options.directory.path) {
            throw CLIError.cacheUnavailable("no cache at \(options.directory.path)")
        }
        try options.checkIsCacheDirectory()
        // The limit a loading run gives the cache: the one stats shows and trim trims to.
        let diskLimit = CacheSizeLimit.resolve(explicit: sizeLimit, directory: options.directory)
        let cache = try open(options, context: context, sizeLimit: diskLimit, maxAge: maxAge, discardingOnKeyMismatch: force)
        defer { cache.flush() }
        var newEncryption: DiskCacheEncryption?
        if sub == "rekey" {
            let encryption = try DiskCacheEncryption(masterKey: try CacheOptions.loadKey(newKeyFile!))
            // The key it has already: rotating would drop every entry for nothing.
            if let current = cache.configuration.cipher, current.keyIdentifier == encryption.cipher.keyIdentifier {
                console.print("the cache at \(options.directory.path) is already encrypted under this key; nothing changed")
                return ExitCode.success
            }
            newEncryption = encryption
        }
        // A read-only cache is read (stats, list, verify) but never claims to have changed: a
        // command that must write it cannot use it (73).
        if cache.isReadOnly, ["trim", "clear", "rekey"].contains(sub) {
            throw CLIError.cacheUnavailable("the cache at \(options.directory.path) is read-only; nothing was changed")
        }
        switch sub {
        case "stats":
            printStats(cache, limit: diskLimit, console: console)
        case "list":
            let entries = cache.entries(limit: limit)
            let total = cache.count
            console.print("digest\tbytes\tformat\tlast access\texpires")
            for e in entries {
                console.print("\(e.digest)\t\(e.size)\t\(e.format?.rawValue ?? "-")\t\(iso(e.lastAccess))\t\(e.expiresAt.map(iso) ?? "-")")
            }
            // Not a row: on standard error, so that the table stays one TSV for scripts.
            if total > entries.count { console.error("… \(total - entries.count) more") }
        case "trim":
            let before = (cache.count, cache.totalSize)
            let expired = cache.removeExpired()
            let trimmed = cache.trim()
            console.print("removed \(expired) expired and \(trimmed) least recently used entries: "
                + "\(before.0) → \(cache.count) entries, \(Formatting.bytes(Int64(before.1))) → \(Formatting.bytes(Int64(cache.totalSize)))")
        case "clear":
            // With --force, entries under another key were discarded as the cache opened.
            let count = cache.count + cache.statistics.otherKeyEntriesRemoved
            cache.removeAll()
            cache.flush()
            console.print("removed \(count) entries from \(options.directory.path)")
        case "verify":
            let report = cache.verify()
            let fate = cache.isReadOnly ? "kept: the cache is read-only" : "removed"
            console.print("checked \(report.checked) entries: \(report.valid) valid, \(report.corrupt) unreadable or tampered (\(fate)), "
                + "\(report.missingFiles) missing files, \(report.orphanFiles) stray files")
            for digest in report.corruptDigests { console.print("  bad: \(digest)") }
            return report.corrupt + report.missingFiles + report.orphanFiles == 0 ? ExitCode.success : ExitCode.failure
        case "rekey":
            guard let newEncryption else { throw CLIError.usage("missing '--new-key-file FILE'") }
            let count = cache.count
            cache.rotateKey(to: newEncryption)
            cache.flush()
            console.print("now encrypted under the key in \(newKeyFile!); \(count) entries under the old key were dropped "
                + "(names are keyed hashes of URLs the cache never stores, so they cannot be renamed)")
        default:
            throw CLIError.usage("unknown cache subcommand '\(sub)'")
        }
        return ExitCode.success
    }

    /// Opens the cache of `options` with the size limit `sizeLimit` and, when given, the
    /// maximum age `maxAge` in seconds; its timer never sweeps.
    static func open(
        _ options: CacheOptions, context: CommandContext, sizeLimit: CacheSizeLimit, maxAge: Int?, discardingOnKeyMismatch: Bool = false
    ) throws -> DiskCache {
        let key = try options.loadKey()
        var configuration = DiskCache.Configuration(directory: options.directory)
        configuration.logger = PictorLog(level: .warning) { level, message in context.console.error("pictor[\(level)]: \(message)") }
        configuration.sizeLimit = Int(clamping: sizeLimit.bytes)
        if sizeLimit.source == .option {
            configuration.trimRatio = 1   // an explicit limit trims exactly down to it
        }
        if let maxAge { configuration.maxAge = TimeInterval(maxAge) }
        configuration.sweepInterval = nil
        if discardingOnKeyMismatch { configuration.keyMismatchPolicy = .removeEntries }
        do {
            if let key { configuration.encrypt(with: try DiskCacheEncryption(masterKey: key)) }
            return try DiskCache(configuration: configuration)
        } catch {
            throw options.openError(error)
        }
    }

    /// `cache stats`' lines about the disk cache; `limit` is the one it was opened with.
    static func printStats(_ cache: DiskCache, limit: CacheSizeLimit, console: Console) {
        let c = cache.configuration
        let entries = cache.entries()
        let s = cache.statistics
        console.print("directory:   \(c.directory.path)")
        console.print("encrypted:   \(c.cipher != nil ? "yes (AES-256-GCM, HMAC-SHA256 names)" : "no")")
        console.print("entries:     \(cache.count)")
        console.print("size:        \(Formatting.bytes(Int64(cache.totalSize))) of \(Formatting.bytes(Int64(c.sizeLimit))) limit")
        // The limit's origin right under the size it limits.
        console.print("limit from:  \(limit.origin)")
        let pinned = cache.pinnedCount
        console.print("pinned:      " + (pinned == 0 ? "none"
            : "\(pinned) entries, \(Formatting.bytes(Int64(cache.pinnedSize))) (never evicted by size or age; counted in the size)"))
        console.print("max age:     \(c.maxAge.map { "\(Int($0)) s since last access" } ?? "none")")
        if let oldest = entries.map(\.lastAccess).min(), let newest = entries.map(\.lastAccess).max() {
            console.print("last access: \(iso(oldest)) … \(iso(newest))")
        }
        // An encrypted cache's index keeps no format: it stays in the sealed file.
        let noFormat = c.cipher != nil ? "sealed" : "unknown"
        var formats: [String: Int] = [:]
        for e in entries { formats[e.format?.rawValue ?? noFormat, default: 0] += 1 }
        if !formats.isEmpty {
            console.print("formats:     " + formats.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        if s.corruptEntriesRemoved + s.missingFilesRemoved > 0 {
            console.print("repaired:    \(s.corruptEntriesRemoved) bad entries, \(s.missingFilesRemoved) missing files removed on open")
        }
    }

    /// The shared tier's section of `cache stats`; exit 1 when Redis cannot be reached.
    static func printSharedStats(_ option: SharedCacheOption, key: EncryptionKey?, console: Console) async throws -> Int32 {
        guard let tier = try option.open(key: key) else { return ExitCode.success }
        let r = tier.redis
        console.print("shared tier: redis://\(r.endpoints.map(\.description).joined(separator: ","))/\(r.database)"
            + (r.endpoints.count > 1 ? " (cluster seeds)" : ""))
        let report: SharedCacheReport
        do {
            report = try await tier.report()
        } catch {
            console.error("pictor: cannot read the shared tier: \(error)")
            return ExitCode.failure
        }
        let f = report.fleet
        console.print("  redis:     \(report.primaries) primar\(report.primaries == 1 ? "y" : "ies"), \(report.keys) keys, "
            + "\(Formatting.bytes(Int64(report.usedMemory))) used"
            + (report.maximumMemory > 0 ? " of \(Formatting.bytes(Int64(report.maximumMemory))) per node" : " (no maxmemory)")
            + ", policy \(report.evictionPolicy), \(report.evictedKeys) evicted")
        if report.maximumMemory == 0 || report.evictionPolicy != "allkeys-lru" {
            console.print("  note:      give Redis 'maxmemory' and 'maxmemory-policy allkeys-lru' so that it evicts old images when full")
        }
        console.print("  fleet:     \(f.hits + f.misses) reads (\(f.hits) found), \(f.stores) stored, \(f.leasesTaken) leases taken "
            + "(downloads for the fleet), \(f.waits) waits (\(f.fallbacks) fell back), \(f.oversized) too large, "
            + "not shared: \(f.notSharedPrivate) private, \(f.notSharedAuthorized) authorized, "
            + "\(f.rejections) refused, \(f.errors) errors, \(f.skips) skipped")
        console.print("  sealed:    \(tier.isEncrypted ? "read with --key-file's key (entries other keys sealed are misses)" : "no key given: entries in clear, SHA-256 names")")
        return ExitCode.success
    }

    static func iso(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false).timeSeparator(.colon).dateSeparator(.dash))
    }
}
