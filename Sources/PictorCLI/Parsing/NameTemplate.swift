import Foundation
import Pictor
import Synchronization

/// `--name TEMPLATE`: how `fetch -o DIR` and `prefetch --out DIR` name the files they write,
/// e.g. `{stem}-{w}x{h}.{ext}`.
///
/// Placeholders: `{stem}` (the URL's last path component without its extension, made safe as
/// the default names make it), `{ext}` (the output format's extension), `{w}` and `{h}` (the
/// written image's size in pixels), `{hash}` (the first 12 hex digits of SHA-256 of the URL)
/// and `{index}` (the URL's 1-based position in the input list). A template names a file inside
/// the output directory, never a path: `/` is refused, and so is a name that would be `.` or
/// `..`, or that starts with `.` (a hidden file). A template with neither `{ext}` nor an
/// extension after its last placeholder (`{index}`, `{stem}-small`) gets the output format's
/// extension appended. Names fit in a file name (255 bytes, with room for a collision suffix):
/// a template whose own text cannot is refused, and a long `{stem}` is cut to fit.
package struct NameTemplate: Equatable {
    enum Placeholder: String, CaseIterable {
        case stem, ext, w, h, hash, index
    }

    enum Part: Equatable {
        case literal(String)
        case placeholder(Placeholder)
    }

    /// The template as given.
    let text: String
    let parts: [Part]

    /// What a placeholder stands for in one file name.
    struct Values {
        var url: URL
        /// 1-based position in the input list.
        var index: Int
        var format: ImageFormat
        var width: Int
        var height: Int
    }

    /// The longest name a template renders, in UTF-8 bytes: `NAME_MAX` (255) less room for the
    /// longest collision suffix (`-` and 16 hex digits), so that a suffixed name fits too.
    static let longestName = 255 - 17

    /// The most bytes each placeholder but `{stem}` expands to: `{ext}` `avif`, `{w}` and `{h}`
    /// 32-bit numbers, `{hash}` 12 hex digits, `{index}` a 10-digit position.
    static let widest: [Placeholder: Int] = [.ext: 4, .w: 10, .h: 10, .hash: 12, .index: 10]

    /// Parses `text`.
    /// - Throws: ``CLIError/usage(_:)`` for an unknown placeholder (named), an unclosed `{`, a
    ///   stray `}`, a `/`, a template that names `.`, `..`, nothing or a hidden file, or one
    ///   whose names cannot fit in 255 bytes even with a one-character `{stem}`.
    package static func parse(_ text: String) throws -> NameTemplate {
        func invalid(_ why: String) -> CLIError { .usage("invalid value '\(text)' for '--name': \(why)") }
        guard !text.contains("/"), !text.contains("\0") else {
            throw invalid("a template names a file in the output directory; '/' is not allowed")
        }
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        while let c = rest.first {
            rest = rest.dropFirst()
            switch c {
            case "{":
                guard let close = rest.firstIndex(of: "}") else { throw invalid("'{' is never closed") }
                let name = String(rest[..<close])
                guard let placeholder = Placeholder(rawValue: name) else {
                    throw invalid("unknown placeholder '{\(name)}'; expected {stem}, {ext}, {w}, {h}, {hash} or {index}")
                }
                if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
                parts.append(.placeholder(placeholder))
                rest = rest[rest.index(after: close)...]
            case "}":
                throw invalid("'}' without a '{'")
            default:
                literal.append(c)
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        let template = NameTemplate(text: text, parts: parts)
        // Placeholders never expand to an empty text, '.' or '/': only a template of literals
        // alone can name '.', '..' or nothing.
        if parts.allSatisfy({ if case .literal = $0 { true } else { false } }), ["", ".", ".."].contains(text) {
            throw invalid("'\(text)' is not a file name")
        }
        if case .literal(let head)? = parts.first, head.hasPrefix(".") {
            throw invalid("a name that starts with '.' is a hidden file; start the template with a placeholder or another character")
        }
        if template.shortestLength + 17 > 255 {
            throw invalid("the names would be longer than 255 bytes, the longest file name (with room for a -<16 hex> suffix)")
        }
        return template
    }

    /// Whether the output format's extension is appended: the template has neither `{ext}` nor
    /// an extension after its last placeholder.
    var appendsExtension: Bool {
        literalExtension == nil && !parts.contains(.placeholder(.ext))
    }

    /// The length in bytes of the longest name with every `{stem}` one byte long.
    private var shortestLength: Int {
        let fixed = parts.reduce(0) { total, part in
            switch part {
            case .literal(let text): total + text.utf8.count
            case .placeholder(.stem): total + 1
            case .placeholder(let p): total + Self.widest[p, default: 0]
            }
        }
        return fixed + (appendsExtension ? 1 + Self.widest[.ext, default: 0] : 0)
    }

    /// The extension written after the last placeholder (`webp` in `{stem}.webp`), which sets the
    /// output format when `--format` is not given; `nil` when the template ends with a
    /// placeholder or has no dot after the last one.
    var literalExtension: String? {
        guard case .literal(let tail)? = parts.last, let dot = tail.lastIndex(of: ".") else { return nil }
        let ext = tail[tail.index(after: dot)...]
        return ext.isEmpty ? nil : String(ext)
    }

    /// The format ``literalExtension`` names, when it names one `pictor` writes.
    var literalExtensionFormat: ImageFormat? {
        literalExtension.flatMap { try? OutputFormatOption.fromExtension(of: "name." + $0) }
    }

    /// Checks that the extension after the last placeholder names a format `pictor` writes,
    /// when no `--format` overrides it.
    /// - Throws: ``CLIError/usage(_:)`` naming the extension.
    func checkExtension(explicitFormat: ImageFormat?) throws {
        guard explicitFormat == nil, let ext = literalExtension else { return }
        if (try? OutputFormatOption.fromExtension(of: "name." + ext)) == nil {
            throw CLIError.usage("invalid value '\(text)' for '--name': cannot write '.\(ext)' files; "
                + "end it with .jpg, .png, .webp, .avif, .gif or {ext}, or pass --format")
        }
    }

    /// The file name for `values`: at most ``longestName`` bytes, every `{stem}` cut alike
    /// (at a character) when the whole would be longer.
    func render(_ values: Values) -> String {
        var stem = OutputNaming.stem(for: values.url)
        func name() -> String {
            var name = parts.map { part in
                switch part {
                case .literal(let text): text
                case .placeholder(.stem): stem
                case .placeholder(.ext): values.format.fileExtension
                case .placeholder(.w): String(values.width)
                case .placeholder(.h): String(values.height)
                case .placeholder(.hash): String(SHA256.hexDigest(values.url.absoluteString).prefix(12))
                case .placeholder(.index): String(values.index)
                }
            }.joined()
            if appendsExtension { name += (name.hasSuffix(".") ? "" : ".") + values.format.fileExtension }
            return name
        }
        let full = name()
        let stems = parts.filter { $0 == .placeholder(.stem) }.count
        guard full.utf8.count > Self.longestName, stems > 0 else { return full }
        let budget = stem.utf8.count - (full.utf8.count - Self.longestName + stems - 1) / stems
        stem = OutputNaming.prefix(of: stem, bytes: max(budget, 1))
        return name()
    }
}

/// Names the files one run writes into its output directory: by ``NameTemplate`` when
/// `--name` is given, else `<stem>-<8 hex of SHA-256 of the URL>.<ext>`. Shared by the run's
/// concurrent jobs, it remembers which URL each name went to, so that two different URLs never
/// write one file: the second gets `-<8 hex>` of its own URL before the extension (the default
/// names' suffix), with a warning. The same URL listed twice writes its one file twice.
///
/// **Input order.** Which of two URLs is "the second" must not depend on which finished first:
/// a template's name may depend on the image (`{w}`, `{h}`, the source format), so it is known
/// only once the image is loaded. With ``namesInInputOrder`` (a concurrent `prefetch --name`),
/// each job writes its file under a temporary name (``temporaryPath(in:index:)``) and hands
/// its result to ``complete(_:emit:)``; a result is named, renamed into place and handed on
/// once every URL listed before it was, so names are claimed in input order whatever the
/// timing: the URL listed first always gets the plain name. Jobs never wait for each other
/// (they free their slot once the file is written); only the naming, and the report lines and
/// JSON objects that show the names, follow input order.
final class OutputNaming: Sendable {
    let template: NameTemplate?
    /// Whether names are claimed in input order (see above); `fetch` runs its URLs one after
    /// another, so it claims them in that order without this.
    let namesInInputOrder: Bool
    /// Where warnings go (a name taken by another URL, a preview not written).
    let console: Console?
    private let claimed = Mutex<[String: URL]>([:])

    private struct Order {
        /// The 1-based input position of the next result to name.
        var next = 1
        /// Finished results that wait for an earlier one, by input position.
        var waiting: [Int: ImageJob.Result] = [:]
        /// Named results, in input order.
        var done: [ImageJob.Result] = []
    }
    private let order = Mutex(Order())

    init(template: NameTemplate?, console: Console? = nil, namesInInputOrder: Bool = false) {
        self.template = template
        self.console = console
        self.namesInInputOrder = namesInInputOrder
    }

    /// Where the job for input position `index` writes its file until it is named: a hidden
    /// file of this process in `directory`, renamed into place (same file system) or deleted.
    func temporaryPath(in directory: String, index: Int) -> String {
        (directory as NSString).appendingPathComponent(".pictor-\(getpid())-\(index).part")
    }

    /// Takes a finished job's result (`result.index` is its input position) and names, then
    /// passes to `emit`, in input order, every result whose earlier ones are all in.
    func complete(_ result: ImageJob.Result, emit: (ImageJob.Result) -> Void) {
        order.withLock { order in
            order.waiting[result.index] = result
            while let next = order.waiting.removeValue(forKey: order.next) {
                let named = finalize(next)
                order.done.append(named)
                emit(named)
                order.next += 1
            }
        }
    }

    /// After the run: names and emits the results still waiting (an interrupted run leaves
    /// positions that never started), in input order, and returns every result, in input order.
    func finish(emit: (ImageJob.Result) -> Void) -> [ImageJob.Result] {
        order.withLock { order in
            for index in order.waiting.keys.sorted() {
                let named = finalize(order.waiting[index]!)
                order.done.append(named)
                emit(named)
            }
            order.waiting = [:]
            return order.done
        }
    }

    /// Claims the name of a result whose file waits under a temporary name and renames the
    /// file into place; a result without one is returned as it is. When no name can be had or
    /// the rename fails, the file is deleted and the image counts as failed.
    private func finalize(_ result: ImageJob.Result) -> ImageJob.Result {
        guard let values = result.pendingName, let temporary = result.outputPath else { return result }
        var result = result
        result.pendingName = nil
        do {
            let name = try name(values)
            let path = ((temporary as NSString).deletingLastPathComponent as NSString).appendingPathComponent(name)
            guard rename(temporary, path) == 0 else {
                throw CLIError.failure("cannot write '\(path)': \(String(cString: strerror(errno)))")
            }
            result.outputPath = path
        } catch {
            unlink(temporary)
            result.status = .failed(ImageJob.reason(error))
            result.outputPath = nil
            result.writtenBytes = 0
        }
        return result
    }

    /// The name for one image, claimed for `values.url`.
    /// - Throws: ``CLIError/failure(_:)`` when no free name is found (a 32-bit digest collision
    ///   between two URLs' suffixes), rather than overwrite another URL's file.
    func name(_ values: NameTemplate.Values) throws -> String {
        let url = values.url
        let wanted = template?.render(values) ?? Self.defaultName(for: url, format: values.format)
        let name = try claimed.withLock { claimed -> String in
            for candidate in [wanted, Self.suffixed(wanted, with: Self.tag(url, 8)), Self.suffixed(wanted, with: Self.tag(url, 16))] {
                if claimed[candidate] == nil || claimed[candidate] == url {
                    claimed[candidate] = url
                    return candidate
                }
            }
            throw CLIError.failure("no free output name for \(Formatting.url(url)) (wanted '\(wanted)')")
        }
        if name != wanted {
            console?.error("pictor: warning: '\(wanted)' was already written for another URL; "
                + "\(Formatting.url(url)) is written as '\(name)' (add {hash} or {index} to --name)")
        }
        return name
    }

    /// The default name: the stem, a dash, 8 hex digits of SHA-256 of the URL, the extension.
    /// Distinct URLs with the same last path component get distinct names.
    static func defaultName(for url: URL, format: ImageFormat) -> String {
        "\(stem(for: url))-\(tag(url, 8)).\(format.fileExtension)"
    }

    /// The URL's last path component without its extension: letters, digits, `-` and `_` kept,
    /// anything else `_`, at most 80 characters and 160 bytes; `image` when nothing is left.
    /// A default name (stem, 8 hex digits, extension) then fits in a file name with a
    /// collision suffix.
    static func stem(for url: URL) -> String {
        var base = url.deletingPathExtension().lastPathComponent
        base = prefix(of: String(base.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }.prefix(80)), bytes: 160)
        if base.isEmpty || base == "_" { base = "image" }
        return base
    }

    /// The longest prefix of `text` of whole characters in at most `bytes` UTF-8 bytes; `_`
    /// when not even its first character fits.
    static func prefix(of text: String, bytes: Int) -> String {
        var count = 0
        var end = text.startIndex
        for index in text.indices {
            let next = count + text[index].utf8.count
            if next > bytes { break }
            count = next
            end = text.index(after: index)
        }
        return end == text.startIndex && !text.isEmpty ? "_" : String(text[..<end])
    }

    /// The first `count` hex digits of SHA-256 of the URL.
    static func tag(_ url: URL, _ count: Int) -> String {
        String(SHA256.hexDigest(url.absoluteString).prefix(count))
    }

    /// `name` with `-tag` before its extension (after the last dot that does not start it).
    static func suffixed(_ name: String, with tag: String) -> String {
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return "\(name[..<dot])-\(tag)\(name[dot...])"
        }
        return "\(name)-\(tag)"
    }
}
