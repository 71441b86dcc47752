import Foundation
import Pictor

/// `pictor cache has|rm|pin|unpin URL...`: one image's entries, found by URL (the cache stores
/// no URL, so they are looked up by the URL's digest).
enum CacheEntryCommands {
    static func run(_ sub: String, _ parser: inout ArgumentParser, context: CommandContext) throws -> Int32 {
        var options = try CacheOptions.parse(&parser, context: context, allowsNoCache: false)
        // The keys `fetch` and `prefetch` stored under: a URL is found only with the same names.
        options.ignoredQueryParameters = try CacheOptions.parseIgnoredQueryParameters(&parser)
        let resize = sub == "rm" ? try ResizeOption.parse(try parser.option(.resize), fit: try parser.option(.fit)) : nil
        let originalOnly = sub == "rm" && parser.flag(.originalOnly)
        let urls = try parser.positionals().map(FetchCommand.parseURL)
        guard !urls.isEmpty else { throw CLIError.usage("missing <url>") }
        if sub == "pin" || sub == "unpin", !FileManager.default.fileExists(atPath: options.directory.path) {
            throw CLIError.cacheUnavailable("no cache at \(options.directory.path)")
        }
        guard FileManager.default.fileExists(atPath: options.directory.path) else {
            // No cache holds nothing: an answer for `has` (no, exit 1), nothing to do for `rm`.
            // The key file, when given, is still checked: the same command must not succeed
            // here and fail on a cache that exists.
            _ = try options.loadKey()
            for url in urls { context.console.print("\(sub == "has" ? "no" : "not cached")\t\(Formatting.url(url))") }
            return sub == "has" ? ExitCode.failure : ExitCode.success
        }
        try options.checkIsCacheDirectory()
        let stack = try PipelineStack(cache: options, console: context.console, storesThumbnails: resize != nil, maintainsLimits: false)
        defer { stack.close() }
        guard let cache = stack.diskCache else { throw CLIError.failure("no cache at \(options.directory.path)") }
        if sub != "has", cache.isReadOnly {
            throw CLIError.cacheUnavailable("the cache at \(options.directory.path) is read-only; nothing was \(sub == "rm" ? "removed" : "\(sub)ned")")
        }
        switch sub {
        case "has":
            var missing = 0
            for url in urls {
                let present = cache.contains(stack.pipeline.dataCacheKey(for: ImageRequest(url: url)))
                if !present { missing += 1 }
                context.console.print("\(present ? "yes" : "no")\t\(Formatting.url(url))")
            }
            return missing == 0 ? ExitCode.success : ExitCode.failure
        case "pin", "unpin":
            var missing = 0
            for url in urls {
                let key = stack.pipeline.dataCacheKey(for: ImageRequest(url: url))
                do {
                    if sub == "pin" { try cache.pin(key) } else { try cache.unpin(key) }
                    context.console.print("\(sub)ned\t\(Formatting.url(url))")
                } catch DiskCacheError.noEntry {
                    missing += 1
                    context.console.print("not cached\t\(Formatting.url(url))")
                } catch {
                    throw CLIError.cacheUnavailable("cannot \(sub) in the cache at \(options.directory.path): \(error)")
                }
            }
            return missing == 0 ? ExitCode.success : ExitCode.failure
        default:
            for url in urls {
                let job = ImageJob(url: url, resize: resize, format: nil, quality: 85)
                let key = stack.pipeline.dataCacheKey(for: ImageRequest(url: url))
                let had = cache.contains(key)
                // The source with everything made from it, counted; then what the pipeline
                // removes by request (with --original-only, all that is removed).
                let removed = originalOnly ? 0 : cache.removeEntry(for: key)
                stack.pipeline.removeCachedImage(for: job.makeRequest())
                let variants = max(0, removed - (had ? 1 : 0))
                // Status and URL stay the first two columns (scripts read them); variants, when
                // any went, are a third.
                let plural = variants == 1 ? "" : "s"
                let detail = variants == 0 ? "" : had ? "\t+\(variants) variant\(plural)" : "\t+\(variants) variant\(plural), no original"
                let status = had || variants > 0 ? "removed" : "not cached"
                context.console.print("\(status)\t\(Formatting.url(url))\(detail)")
            }
            stack.flush()
            return ExitCode.success
        }
    }
}
