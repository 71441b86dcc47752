import Foundation
import Pictor
import Synchronization

/// `pictor prefetch <urls-file|url>... [--concurrency N] [--resize W|WxH] [--out DIR] ...`
enum PrefetchCommand {
    static let help = """
    USAGE: pictor prefetch <urls-file|url>... [options]

    Loads many images through the pipeline to warm the disk cache. Each argument is
    a URL, an image file, a file with one URL per line, or '-' for standard input
    (blank lines are skipped, and so are comments: lines whose first non-blank
    character is '#'; a '#' anywhere else is part of the URL or path). A URL may
    also be a file's path, absolute or relative to the current directory (a.png and
    ./a.png alike; it must exist). Every URL is checked before anything is fetched:
    one malformed line stops the run (exit 64, naming it). Shows progress on
    standard error (a bar with percent and ETA on a terminal, a plain line every 10%
    otherwise) and ends with a summary on standard output: count, failures with
    reasons, hits per layer, revalidations, entries stored already stale, bytes and
    images per second. Ctrl-C stops the run: the images in flight are cancelled
    (counted apart from failures), the partial summary is printed, the report kept,
    and the exit code is 130.

    OPTIONS:
    \(OptionHelp.block(CLICommandOptions.prefetch.options))

    EXAMPLES:
      pictor prefetch urls.txt --concurrency 8 --resize 256 --report report.tsv
      pictor prefetch urls.txt --out thumbs --name '{index}-{hash}.webp' --json
    """

    static func run(_ arguments: [String], context: CommandContext) async throws -> Int32 {
        var parser = ArgumentParser(arguments, declared: CLICommandOptions.prefetch.options)
        if parser.flag(.help) { context.console.print(help); return ExitCode.success }
        let concurrency = try parser.intOption(.concurrency) ?? 6
        let resize = try ResizeOption.parse(try parser.option(.resize), fit: try parser.option(.fit))
        let headers = try HeaderOption.parse(&parser)
        let cachesThumbnails = !parser.flag(.noCacheThumbnails)
        let strictDecoding = parser.flag(.strictDecoding)
        let out = try parser.option(.prefetchOutput)
        let template = try parser.option(.name).map(NameTemplate.parse)
        let format = try OutputFormatOption.parse(try parser.option(.prefetchFormat))
        let quality = try parser.intOption(.prefetchQuality) ?? CLIOption.defaultQuality
        let dataOnly = parser.flag(.dataOnly)
        let reportPath = try parser.option(.report)
        let json = parser.flag(.prefetchJSON)
        let quiet = parser.flag(.prefetchQuiet)
        let offline = parser.flag(.offline)
        let cache = try CacheOptions.parse(&parser, context: context, allowsNoCache: true)
        let shared = try SharedCacheOption.parse(&parser, context: context)
        let tls = try TLSOption.parse(&parser, context: context)
        let inputs = try parser.positionals()
        guard !inputs.isEmpty else { throw CLIError.usage("missing <urls-file|url>") }
        if dataOnly && (out != nil || resize != nil) {
            throw CLIError.usage("'--data-only' cannot be combined with '--out' or '--resize'")
        }
        if template != nil, out == nil { throw CLIError.usage("'--name' needs an output directory: --out DIR") }
        try template?.checkExtension(explicitFormat: format)
        let urls = try readURLs(inputs)
        guard !urls.isEmpty else {
            throw CLIError.usage("no URLs found in \(inputs.map { $0 == "-" ? "standard input" : $0 }.joined(separator: " "))")
        }
        if let out {
            if FileManager.default.fileExists(atPath: out), !FetchCommand.isDirectory(out) {
                throw CLIError.usage("'--out \(out)' is a file; pass a directory")
            }
            do {
                try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            } catch {
                throw CLIError.failure("cannot create output directory '\(out)'")
            }
        }
        if let reportPath {
            if FetchCommand.isDirectory(reportPath) { throw CLIError.usage("'--report \(reportPath)' is a directory; pass a file name") }
            let parent = (reportPath as NSString).deletingLastPathComponent
            if !parent.isEmpty, !FetchCommand.isDirectory(parent) {
                throw CLIError.usage("'--report \(reportPath)': directory '\(parent)' does not exist")
            }
        }

        let stack = try PipelineStack(
            cache: cache, shared: shared, tls: tls, console: context.console, concurrency: concurrency, strictDecoding: strictDecoding,
            storesThumbnails: resize != nil && cachesThumbnails, thumbnailOutput: (format ?? template?.literalExtensionFormat, quality))
        defer { stack.close() }
        let report = try reportPath.map { try ReportWriter(path: $0) }
        defer { report?.close() }
        let progress = ProgressReporter(total: urls.count, console: context.console, quiet: quiet)
        let interruption = Interruption()
        defer { interruption.stop() }
        let start = ContinuousClock.now
        let console = context.console
        // With --name, the earlier of two URLs that want one name gets it, whatever finishes first.
        let naming = OutputNaming(template: template, console: console, namesInInputOrder: template != nil && out != nil)
        let emit: @Sendable (ImageJob.Result) -> Void = { result in
            report?.append(result, finishedAfter: result.finishedAfter)
            if json { console.print(JSONOutput.line(JSONOutput.ImageRecord(result))) }
        }
        var results = await runAll(urls: urls, concurrency: PipelineStack.imagesInFlight(downloads: concurrency, decodes: !dataOnly), interruption: interruption) { index, url in
            var job = ImageJob(
                url: url, index: index + 1, resize: resize, format: format, quality: quality, dataOnly: dataOnly, headers: headers)
            job.offline = offline
            var result = await job.run(pipeline: stack.pipeline, output: out, outputIsDirectory: true, naming: naming)
            result.finishedAfter = (ContinuousClock.now - start).seconds
            progress.advance(failed: result.status.isFailure)
            if naming.namesInInputOrder { naming.complete(result, emit: emit) } else { emit(result) }
            return result
        }
        if naming.namesInInputOrder { results = naming.finish(emit: emit) }
        progress.finish()
        // A stale answer's revalidation refreshes the caches before they are flushed, unless
        // Ctrl-C comes first: an interrupted run exits without waiting for its origins.
        await interruption.untilInterrupted { [pipeline = stack.pipeline] in await pipeline.waitForBackgroundRevalidations() }
        stack.flush()
        let elapsed = (ContinuousClock.now - start).seconds
        await stack.recordSharedStatistics()
        let summary = PrefetchSummary(
            results: results, elapsed: elapsed, fleet: stack.sharedCache == nil ? nil : stack.pipeline.statistics.sharedCache)
        let interrupted = interruption.happened
        if json {
            console.print(JSONOutput.line(JSONOutput.SummaryRecord(summary, interrupted: interrupted, notStarted: urls.count - results.count)))
        } else {
            console.print(summary.text)
            if let disk = stack.diskCache, disk.statistics.evictedBySize > 0 {
                let evicted = disk.statistics.evictedBySize
                console.print("  warning:     the set outgrew the disk cache: "
                    + (evicted == 1 ? "1 entry was evicted" : "\(evicted) entries were evicted") + " to stay "
                    + "under its \(Formatting.bytes(Int64(disk.configuration.sizeLimit))) limit, so a warm run will download "
                    + (evicted == 1 ? "it" : "them") + " again; raise --size-limit")
            }
            if interrupted {
                console.print("  interrupted: \(urls.count - results.count) of \(urls.count) URLs not started, "
                    + "\(summary.cancelled) cancelled in flight (Ctrl-C)")
            }
        }
        if interrupted { return ExitCode.interrupted }
        return ExitCode.of(failures: summary.failures)
    }

    /// URLs from arguments: an argument that parses as a URL is one; `-` reads a list from
    /// standard input; anything else is read as a file of URLs. Results keep input order.
    static func readURLs(_ inputs: [String], standardInput: () -> Data = { FileHandle.standardInput.readDataToEndOfFile() }) throws -> [URL] {
        var urls: [URL] = []
        for input in inputs {
            if input.contains("://") || input.hasPrefix("data:") {
                urls.append(try FetchCommand.parseURL(input))
                continue
            }
            let bytes: Data
            if input == "-" {
                bytes = standardInput()
            } else {
                guard let (contents, isRegularFile) = readInput(input) else {
                    throw CLIError.usage("cannot read '\(input)' (not a URL, and not a readable file)")
                }
                bytes = contents
                // An image file given directly is one URL, not a list, however its path is spelled
                // (a pipe is always a list: it cannot be read again as an image).
                if isRegularFile, ImageFormat.sniff(bytes) != nil {
                    urls.append(try FetchCommand.parseURL(input.hasPrefix("/") ? input : "./" + input))
                    continue
                }
            }
            let name = input == "-" ? "standard input" : input
            // A list is text: a NUL byte means a binary file, or a damaged list, not URLs.
            if bytes.contains(0) {
                throw CLIError.usage("\(name) is not a list of URLs: it holds NUL bytes (a binary file?)")
            }
            for (number, line) in URLList.lines(bytes) {
                do {
                    urls.append(try FetchCommand.parseURL(line))
                } catch {
                    throw CLIError.usage("\(name):\(number): invalid URL '\(FetchCommand.excerpt(line))'")
                }
            }
        }
        return urls
    }

    /// The bytes at `path`: a regular file's, or what a pipe or character device (`<(…)`,
    /// `/dev/stdin`, a named FIFO) gives until its end; `nil` for a directory, a socket, or what
    /// cannot be opened.
    static func readInput(_ path: String) -> (bytes: Data, isRegularFile: Bool)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            return FileManager.default.contents(atPath: path).map { ($0, true) }
        case S_IFIFO, S_IFCHR:
            guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
            defer { try? handle.close() }
            return ((try? handle.readToEnd()) ?? Data(), false)
        default:
            return nil
        }
    }

    /// Runs `work` over `urls` (with each one's 0-based position) with at most `concurrency` in
    /// flight; results in input order.
    /// After an interruption no new URL is started, the running ones are cancelled, and only
    /// the results of URLs that were started are returned.
    ///
    /// `concurrency` lanes (child tasks) each take the next URL as soon as their last one is
    /// done, rather than one child task per URL handed out by the parent: a long list then
    /// creates no task per image, and a finished image does not wait for the parent to be
    /// scheduled before the next one starts.
    static func runAll(
        urls: [URL], concurrency: Int, interruption: Interruption? = nil,
        work: @escaping @Sendable (Int, URL) async -> ImageJob.Result
    ) async -> [ImageJob.Result] {
        let cursor = ListCursor()
        let task = Task {
            await withTaskGroup(of: [(Int, ImageJob.Result)].self) { group in
                for _ in 0..<min(concurrency, urls.count) {
                    group.addTask {
                        var finished: [(Int, ImageJob.Result)] = []
                        while !Task.isCancelled, let index = cursor.take(below: urls.count) {
                            finished.append((index, await work(index, urls[index])))
                        }
                        return finished
                    }
                }
                var results = [ImageJob.Result?](repeating: nil, count: urls.count)
                for await lane in group {
                    for (index, result) in lane { results[index] = result }
                }
                return results.compactMap { $0 }
            }
        }
        // Cancelling the task cancels every load in flight.
        interruption?.onInterrupt { task.cancel() }
        return await task.value
    }
}

/// The next position of a list that several lanes work through.
private final class ListCursor: Sendable {
    private let next = Atomic<Int>(0)

    /// The next position, or `nil` once `count` were taken.
    func take(below count: Int) -> Int? {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < count ? index : nil
    }
}
