import Foundation
import Pictor

/// Options shared by the commands that open a cache.
struct CacheOptions {
    /// `--cache-dir DIR`; default ``CommandContext/defaultCacheDirectory``.
    var directory: URL
    /// `--key-file FILE`: a 32-byte key (raw, hex or base64) that turns encryption on.
    var keyFile: String?
    /// `--no-cache`: no disk cache at all (memory only, for this process).
    var disabled: Bool
    /// `--cache-policy http|ignore-headers`: how disk entries are judged fresh.
    var policy: ImagePipeline.HTTPCachePolicy = .http
    /// `--size-limit BYTES` (`fetch`, `prefetch`, `serve`): the disk cache's size limit for this
    /// run; `nil` for the default (``resolvedSizeLimit()``).
    var sizeLimit: Int64?
    /// `--max-age DURATION` (`fetch`, `prefetch`): the disk cache's maximum age for this run.
    var maxAge: TimeInterval?
    /// `--cache-key-ignore-query NAME` (`fetch`, `prefetch`, `serve`, `cache has`, `cache rm`):
    /// the query parameters left out of cache keys
    /// (``/PictorCore/ImagePipeline/Configuration/urlCacheKey(ignoringQueryParameters:)``);
    /// none by default.
    var ignoredQueryParameters: [String] = []

    static func parse(_ parser: inout ArgumentParser, context: CommandContext, allowsNoCache: Bool) throws -> CacheOptions {
        let dir = try parser.option(.cacheDirectory)
        let keyFile = try parser.option(.keyFile)
        let disabled = allowsNoCache ? parser.flag(.noCache) : false
        let policyName = allowsNoCache ? try parser.option(.cachePolicy) : nil
        let sizeLimit = allowsNoCache ? try parser.option(.sizeLimit).map { try Formatting.parseBytes($0, option: "--size-limit") } : nil
        let maxAge = allowsNoCache ? try parser.option(.maxAge).map { try Formatting.parseDuration($0, option: "--max-age") } : nil
        let ignoredQueryParameters = allowsNoCache ? try parseIgnoredQueryParameters(&parser) : []
        if let dir, dir.isEmpty { throw CLIError.usage("empty value for '--cache-dir'") }
        var policy = ImagePipeline.HTTPCachePolicy.http
        switch policyName {
        case nil, "http": break
        case "ignore-headers": policy = .ignoreHTTPHeaders
        case let other?: throw CLIError.usage("invalid value '\(other)' for '--cache-policy': expected http or ignore-headers")
        }
        return CacheOptions(
            directory: dir.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? context.defaultCacheDirectory,
            keyFile: keyFile, disabled: disabled, policy: policy, sizeLimit: sizeLimit, maxAge: maxAge,
            ignoredQueryParameters: ignoredQueryParameters)
    }

    /// Every `--cache-key-ignore-query NAME`, in order.
    /// - Throws: ``CLIError/usage(_:)`` for an empty name, and for a `*` before a name's end
    ///   (only a trailing `*` matches a prefix: `X-*-Date` would match no name the user meant).
    static func parseIgnoredQueryParameters(_ parser: inout ArgumentParser) throws -> [String] {
        try parser.options(.cacheKeyIgnoreQuery).map { name in
            if name.isEmpty { throw CLIError.usage("empty value for '--cache-key-ignore-query': expected a query parameter's name") }
            if name.dropLast().contains("*") {
                throw CLIError.usage("invalid value '\(name)' for '--cache-key-ignore-query': "
                    + "a '*' matches a prefix only at the end of a name, e.g. 'X-Amz-*'")
            }
            return name
        }
    }

    /// The disk cache's size limit: `--size-limit`, else the default from the free space where
    /// ``directory`` is (``CacheSizeLimit/resolve(explicit:directory:)``).
    func resolvedSizeLimit() -> CacheSizeLimit { CacheSizeLimit.resolve(explicit: sizeLimit, directory: directory) }

    /// Refuses a directory that exists, is not empty and is not a Pictor cache
    /// (``DiskCache/looksLikeCacheDirectory(_:)``): the cache treats digest-named files in its
    /// directory as its own, so it must not adopt a folder of other files
    /// (`--cache-dir ~/Downloads`). A cache is recognised by its index, or its lock file and
    /// `tmp/` (files of others beside them are left alone), and a cache whose index was
    /// deleted by its lock file or entry files.
    /// - Throws: ``CLIError/cacheUnavailable(_:)`` (exit 73).
    func checkIsCacheDirectory() throws {
        guard !DiskCache.looksLikeCacheDirectory(directory) else { return }
        // A `tmp` that is not a folder is named: "other files" would send the user looking
        // for files that are not there.
        let tmp = directory.appendingPathComponent("tmp")
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: tmp.path, isDirectory: &isFolder), !isFolder.boolValue {
            throw CLIError.cacheUnavailable(
                "\(directory.path) is not a usable Pictor cache: \(tmp.path) is not a folder (a cache keeps its temporary files in a tmp folder); move it away, or use a new or empty directory")
        }
        throw CLIError.cacheUnavailable("\(directory.path) is not a Pictor cache (it holds other files); use a new or empty directory")
    }

    /// Loads the key named by `--key-file`, if any.
    /// - Throws: ``CLIError/cacheUnavailable(_:)`` (exit 73: the cache cannot be used without
    ///   its key) when the file is missing, not a file, malformed, too short or readable by
    ///   others.
    func loadKey() throws -> EncryptionKey? {
        guard let keyFile else { return nil }
        return try Self.loadKey(keyFile)
    }

    /// Loads the key in `path` (`--key-file`, `--new-key-file`).
    /// - Throws: ``CLIError/cacheUnavailable(_:)`` naming the file and the problem.
    static func loadKey(_ path: String) throws -> EncryptionKey {
        do {
            return try EncryptionKey(contentsOfFile: path)
        } catch {
            throw CLIError.cacheUnavailable("\(error)")   // CryptoError names the file and the problem
        }
    }

    /// The command-line reading of a failure to open the disk cache, with what to do about it:
    /// always ``CLIError/cacheUnavailable(_:)`` (exit 73), whatever the cause (another key, no
    /// key, a key for a plain cache, permissions, a file where the directory should be).
    func openError(_ error: any Error) -> CLIError {
        let diskCacheError = error as? DiskCacheError
        switch (diskCacheError?.path, diskCacheError?.keyMismatch) {
        case (let path?, .keyRequired?):
            return .cacheUnavailable("the cache at \(path) is encrypted: pass --key-file FILE with its key")
        case (let path?, .anotherKey?):
            return .cacheUnavailable("the cache at \(path) was encrypted with another key: pass the key file it was created with, "
                + "or discard its entries with 'pictor cache clear --force --key-file FILE'")
        case (let path?, .notEncrypted?):
            return .cacheUnavailable("the cache at \(path) is not encrypted: run without --key-file; to encrypt it, "
                + "'pictor cache rekey --cache-dir \(path) --new-key-file FILE'")
        default:
            return .cacheUnavailable("cannot open the disk cache at \(directory.path): \(error)")
        }
    }
}

/// `--format jpeg|png|webp|avif|gif`.
enum OutputFormatOption {
    static let encodable: [ImageFormat] = [.jpeg, .png, .webp, .avif, .gif]
    static let names = "jpeg, png, webp, avif or gif"

    /// The format a file name's extension asks for: `nil` when it has no extension.
    /// - Throws: ``CLIError/usage(_:)`` when the extension is not a format `pictor` writes.
    static func fromExtension(of path: String) throws -> ImageFormat? {
        let name = (path as NSString).lastPathComponent
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        if let f = encodable.first(where: { $0.fileExtension == ext || $0.rawValue == ext }) { return f }
        throw CLIError.usage("cannot write '.\(ext)' files ('\(path)'): expected .jpg, .png, .webp, .avif or .gif, or pass --format")
    }

    static func parse(_ text: String?) throws -> ImageFormat? {
        guard let text else { return nil }
        let normalized = text.lowercased() == "jpg" ? "jpeg" : text.lowercased()
        guard let format = ImageFormat(rawValue: normalized), encodable.contains(format) else {
            throw CLIError.usage("invalid value '\(text)' for '--format': expected \(names)")
        }
        return format
    }

    /// The format for an output file: explicit, else from the file extension (already validated
    /// by ``fromExtension(of:)``), else the source's format when it can be written, else PNG.
    static func resolve(explicit: ImageFormat?, path: String?, source: ImageFormat?) -> ImageFormat {
        if let explicit { return explicit }
        if let path, let f = try? fromExtension(of: path) { return f }
        if let source, encodable.contains(source) { return source }
        return .png
    }
}

/// Byte counts, durations and URLs for people.
enum Formatting {
    /// A URL as printed: a password is replaced by `***`, and a long URL (a large `data:` URL)
    /// is cut to 200 characters with its length.
    static func url(_ url: URL) -> String {
        var text = url.absoluteString
        if url.password != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.password = "***"
            text = components.string ?? text
        }
        if text.count > 200 { text = String(text.prefix(200)) + "… (\(text.count) characters)" }
        return text
    }

    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(n)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(n) B" : "\(fixed(value, digits: 1)) \(units[unit])"
    }

    static func milliseconds(_ seconds: Double) -> String { "\(fixed(seconds * 1000, digits: 1)) ms" }

    /// `value` with exactly `digits` decimals (0...6), rounded half away from zero: `%.*f`
    /// without `String(format:)`, whose first call sets up Foundation's locale and `CVarArg`
    /// machinery (about a millisecond of a short run's start).
    static func fixed(_ value: Double, digits: Int) -> String {
        let scale = (0..<digits).reduce(1.0) { value, _ in value * 10 }
        let product = abs(value) * scale
        var scaled = product.rounded()
        // The product is itself rounded, and can land exactly on a tie (…819.5 for 701891.8195,
        // whose double is just below it) where the value is not on one: printf rounds the value,
        // so the product's exact error (which `fma` gives) says which way. An exact tie stays
        // away from zero.
        if product - product.rounded(.down) == 0.5 {
            let error = fma(abs(value), scale, -product)
            if error < 0 { scaled = product.rounded(.down) } else if error > 0 { scaled = product.rounded(.up) }
        }
        guard value.isFinite, scaled < 9e15 else { return "\(value)" }
        let units = UInt64(scaled), divisor = UInt64(scale)
        let sign = value < 0 && units > 0 ? "-" : ""
        guard digits > 0 else { return sign + "\(units)" }
        let fraction = String(units % divisor)
        return sign + "\(units / divisor)." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// Parses `123`, `10K`, `500M`, `1.5GiB`, `2G` (powers of 1024) into bytes.
    static func parseBytes(_ text: String, option: String) throws -> Int64 {
        let t = text.uppercased().replacingOccurrences(of: "IB", with: "").replacingOccurrences(of: "B", with: "")
        let multipliers: [Character: Double] = ["K": 1024, "M": 1_048_576, "G": 1_073_741_824, "T": 1_099_511_627_776]
        var digits = Substring(t)
        var multiplier = 1.0
        if let last = t.last, let m = multipliers[last] { multiplier = m; digits = t.dropLast() }
        guard isDecimal(digits), let value = Double(digits), value.isFinite, value >= 0 else {
            throw CLIError.usage("invalid value '\(text)' for '\(option)': expected bytes, e.g. 500M or 1.5GiB")
        }
        let bytes = (value * multiplier).rounded()
        guard bytes < 9.2e18 else { throw CLIError.usage("invalid value '\(text)' for '\(option)': too large") }
        return Int64(bytes)
    }

    /// Whether `text` is a plain decimal number: digits with at most one `.`, and at least one
    /// digit. `Double(_:)` alone also reads `0x10` (16), `1e3`, `+5`, `nan` and `infinity`.
    private static func isDecimal(_ text: Substring) -> Bool {
        text.contains { $0.isASCII && $0.isNumber } && text.allSatisfy { ($0.isASCII && $0.isNumber) || $0 == "." }
            && text.filter { $0 == "." }.count <= 1
    }

    /// Parses `90`, `90s`, `30m`, `12h`, `7d`, `2w` (a number of seconds, minutes, hours, days or
    /// weeks, decimals allowed) into seconds.
    static func parseDuration(_ text: String, option: String) throws -> TimeInterval {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        var digits = Substring(text.lowercased())
        var unit = 1.0
        if let last = digits.last, let u = units[last] { unit = u; digits = digits.dropLast() }
        guard isDecimal(digits), let value = Double(digits), value.isFinite, value > 0 else {
            throw CLIError.usage("invalid value '\(text)' for '\(option)': expected a duration, e.g. 7d, 12h or 90m")
        }
        return value * unit
    }
}
