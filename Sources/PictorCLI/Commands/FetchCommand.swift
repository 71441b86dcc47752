import Foundation
import Pictor

/// `pictor fetch <url>... [--resize W|WxH] [-o FILE|DIR] [--format F] [--quality Q]
/// [--cache-dir DIR] [--key-file FILE] [--no-cache] [--shared-cache URL]`
enum FetchCommand {
    static let help = """
    USAGE: pictor fetch <url>... [options]

    Fetches each image through the pipeline (memory → disk cache → network),
    decodes it (EXIF orientation applied), optionally resizes it at decode time,
    and optionally writes it out. Prints, per image: the layer it came from
    (memory, disk, shared or network), pixel size, bytes and milliseconds.
    Each <url> is an http(s), file or data URL, or a file's path: absolute, or
    relative to the current directory (a.png and ./a.png alike; it must exist).

    OPTIONS:
    \(OptionHelp.block(CLICommandOptions.fetch.options))

    EXAMPLES:
      pictor fetch https://example.org/a.jpg --resize 256 -o a-256.webp
      pictor fetch URL1 URL2 --resize 512x -o thumbs --name '{stem}-{w}x{h}.{ext}'
      pictor fetch https://example.org/big.jpg -o big.png --previews steps
    """

    static func run(_ arguments: [String], context: CommandContext) async throws -> Int32 {
        var parser = ArgumentParser(arguments, declared: CLICommandOptions.fetch.options)
        if parser.flag(.help) { context.console.print(help); return ExitCode.success }
        let resize = try ResizeOption.parse(try parser.option(.resize), fit: try parser.option(.fit))
        let headers = try HeaderOption.parse(&parser)
        let cachesThumbnails = !parser.flag(.noCacheThumbnails)
        let strictDecoding = parser.flag(.strictDecoding)
        let output = try parser.option(.fetchOutput)
        let previews = try parser.option(.previews)
        if previews?.isEmpty == true { throw CLIError.usage("invalid value '' for '--previews': name a directory") }
        let template = try parser.option(.name).map(NameTemplate.parse)
        if output == "-" || output?.isEmpty == true {
            throw CLIError.usage("invalid value '\(output ?? "")' for '-o': name a file or a directory (standard output is not supported)")
        }
        let format = try OutputFormatOption.parse(try parser.option(.format))
        let quality = try parser.intOption(.quality) ?? CLIOption.defaultQuality
        let json = parser.flag(.json)
        let quiet = parser.flag(.quiet)
        let offline = parser.flag(.offline)
        let cache = try CacheOptions.parse(&parser, context: context, allowsNoCache: true)
        let shared = try SharedCacheOption.parse(&parser, context: context)
        let tls = try TLSOption.parse(&parser, context: context)
        let urls = try parser.positionals().map(parseURL)
        guard !urls.isEmpty else { throw CLIError.usage("missing <url>") }

        try template?.checkExtension(explicitFormat: format)
        let outputIsDirectory: Bool
        if template != nil {
            // A name template names files inside a directory: -o is one, existing or not.
            guard let output else { throw CLIError.usage("'--name' needs an output directory: -o DIR") }
            if FileManager.default.fileExists(atPath: output), !Self.isDirectory(output) {
                throw CLIError.usage("'-o \(output)' is a file, but '--name' names files in a directory: pass a directory")
            }
            outputIsDirectory = true
        } else {
            outputIsDirectory = try output.map { try Self.outputIsDirectory($0, urlCount: urls.count, format: format) } ?? false
        }
        if let previews {
            if FileManager.default.fileExists(atPath: previews), !Self.isDirectory(previews) {
                throw CLIError.usage("'--previews \(previews)' is a file: pass a directory")
            }
            do {
                try FileManager.default.createDirectory(atPath: previews, withIntermediateDirectories: true)
            } catch {
                throw CLIError.failure("cannot create previews directory '\(previews)'")
            }
        }
        if let output, outputIsDirectory {
            do {
                try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            } catch {
                throw CLIError.failure("cannot create output directory '\(output)'")
            }
        }

        let stack = try PipelineStack(
            cache: cache, shared: shared, tls: tls, console: context.console, strictDecoding: strictDecoding,
            storesThumbnails: resize != nil && cachesThumbnails,
            thumbnailOutput: (format ?? template?.literalExtensionFormat
                              ?? (outputIsDirectory ? nil : output.flatMap { try? OutputFormatOption.fromExtension(of: $0) }), quality))
        defer { stack.close() }
        var results: [ImageJob.Result] = []
        let start = ContinuousClock.now
        let naming = OutputNaming(template: template, console: context.console)
        for (index, url) in urls.enumerated() {
            var job = ImageJob(url: url, index: index + 1, resize: resize, format: format, quality: quality, headers: headers)
            job.offline = offline
            job.previewDirectory = previews
            let result = await job.run(pipeline: stack.pipeline, output: output, outputIsDirectory: outputIsDirectory, naming: naming)
            results.append(result)
            if json {
                context.console.print(JSONOutput.line(JSONOutput.ImageRecord(result)))
                continue
            }
            switch result.status {
            case .ok:
                if quiet { continue }
                var line = "\(Formatting.url(url))  \(result.layer)  \(result.width)×\(result.height)  \(result.bytes.map(Formatting.bytes) ?? "no original read")  \(Formatting.milliseconds(result.seconds))"
                if let written = result.outputPath { line += "  → \(written) (\(Formatting.bytes(result.writtenBytes)))" }
                if result.truncated { line += "  (cut short: complete frames only, not cached)" }
                if let counts = result.previews {
                    line += "  (\(counts.received) preview\(counts.received == 1 ? "" : "s"), \(counts.written) written)"
                }
                context.console.print(line)
            case .failed(let reason):
                context.console.error("\(Formatting.url(url))  failed: \(reason)")
            case .cancelled:
                context.console.error("\(Formatting.url(url))  cancelled")
            }
        }
        if json {
            let summary = PrefetchSummary(
                results: results, elapsed: (ContinuousClock.now - start).seconds,
                fleet: stack.sharedCache == nil ? nil : stack.pipeline.statistics.sharedCache)
            context.console.print(JSONOutput.line(JSONOutput.SummaryRecord(summary)))
        }
        // A stale answer's revalidation refreshes the caches before the process ends.
        await stack.pipeline.waitForBackgroundRevalidations()
        await stack.recordSharedStatistics()
        return ExitCode.of(failures: results.filter { $0.status != .ok })
    }

    /// `text` shortened to its first 200 characters (and `…`) for a message: a line of a list
    /// can be any length.
    static func excerpt(_ text: String) -> String {
        text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    /// A URL argument or list line, checked before any work: an `http`, `https`, `file` or
    /// `data` URL (an `http(s)` URL must name a host), an absolute path, or a path relative to
    /// the current directory, `rel.png` and `./rel.png` alike. A relative path must name an
    /// existing file: without a scheme, a token that names none is more likely a URL typed
    /// without one than a file. An absolute path is not checked here; a missing file fails
    /// when it is loaded, as a missing `file:` URL does. Paths are standardised (`a/./b` is
    /// `a/b`), so both spellings are one URL and one cache entry.
    ///
    /// - Throws: ``CLIError/usage(_:)`` naming `text`.
    static func parseURL(_ text: String) throws -> URL {
        if text.hasPrefix("/") {
            return URL(fileURLWithPath: text, isDirectory: false).standardizedFileURL
        }
        let explicitlyRelative = text.hasPrefix("./") || text.hasPrefix("../")
        // Spaces and non-ASCII characters are percent-encoded once, as a browser's address bar does.
        if !explicitlyRelative, let url = URLNormalization.url(text), let scheme = url.scheme?.lowercased() {
            guard ["http", "https", "file", "data"].contains(scheme) else {
                throw CLIError.usage("invalid URL '\(excerpt(text))': expected an http, https, file or data URL, or a file's path")
            }
            if scheme == "http" || scheme == "https", url.host?.isEmpty ?? true {
                throw CLIError.usage("invalid URL '\(excerpt(text))': no host (expected \(scheme)://host/path)")
            }
            if scheme == "file", url.path.isEmpty {
                throw CLIError.usage("invalid URL '\(excerpt(text))': no path (expected file:///path)")
            }
            if let port = url.port, !(1...65_535).contains(port) {
                throw CLIError.usage("invalid URL '\(excerpt(text))': port \(port) is outside 1...65535")
            }
            return url
        }
        guard !text.isEmpty, FileManager.default.fileExists(atPath: text) else {
            throw CLIError.usage("invalid URL '\(excerpt(text))': not a URL (http, https, file or data), "
                + "and no file of that name in the current directory")
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath + "/" + text, isDirectory: false).standardizedFileURL
    }

    /// Whether `-o` names a directory: an existing one, a path ending in `/`, or any path when
    /// several URLs are fetched. A file path must have no extension or a writable format's.
    ///
    /// - Throws: ``CLIError/usage(_:)`` for several URLs and a file name (an existing file, or a
    ///   name with an image extension), or for an extension `pictor` cannot write.
    static func outputIsDirectory(_ output: String, urlCount: Int, format: ImageFormat?) throws -> Bool {
        if output.hasSuffix("/") || isDirectory(output) { return true }
        if urlCount > 1 {
            let looksLikeFile = FileManager.default.fileExists(atPath: output)
                || (try? OutputFormatOption.fromExtension(of: output)) != nil
            if looksLikeFile {
                throw CLIError.usage("'-o \(output)' names a file, but \(urlCount) URLs were given: pass a directory")
            }
            return true
        }
        if format == nil { _ = try OutputFormatOption.fromExtension(of: output) }
        return false
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }
}
