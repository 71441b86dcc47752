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
/// `..`.
struct NameTemplate: Equatable {
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

    static let help = """
      --name TEMPLATE       name the files written into the output directory:
                            {stem} (from the URL), {ext}, {w} and {h} (pixels),
                            {hash} (12 hex digits of SHA-256 of the URL), {index}
                            (1-based position in the input); e.g.
                            '{stem}-{w}x{h}.{ext}'. Default: {stem}-<8 hex>.{ext}.
                            A name another URL already took gets -<8 hex> added
    """

    /// Parses `text`.
    /// - Throws: ``CLIError/usage(_:)`` for an unknown placeholder (named), an unclosed `{`, a
    ///   stray `}`, a `/`, or a template that names `.`, `..` or nothing.
    static func parse(_ text: String) throws -> NameTemplate {
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
        return template
    }

    /// The extension written after the last placeholder (`webp` in `{stem}.webp`), which sets the
    /// output format when `--format` is not given; `nil` when the template ends with a
    /// placeholder or has no dot after the last one.
    var literalExtension: String? {
        guard case .literal(let tail)? = parts.last, let dot = tail.lastIndex(of: ".") else { return nil }
        let ext = tail[tail.index(after: dot)...]
        return ext.isEmpty ? nil : String(ext)
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

    /// The file name for `values`.
    func render(_ values: Values) -> String {
        parts.map { part in
            switch part {
            case .literal(let text): text
            case .placeholder(.stem): OutputNaming.stem(for: values.url)
            case .placeholder(.ext): values.format.fileExtension
            case .placeholder(.w): String(values.width)
            case .placeholder(.h): String(values.height)
            case .placeholder(.hash): String(SHA256.hexDigest(values.url.absoluteString).prefix(12))
            case .placeholder(.index): String(values.index)
            }
        }.joined()
    }
}

/// Names the files one run writes into its output directory: by ``NameTemplate`` when
/// `--name` is given, else `<stem>-<8 hex of SHA-256 of the URL>.<ext>`. Shared by the run's
/// concurrent jobs, it remembers which URL each name went to, so that two different URLs never
/// write one file: the second gets `-<8 hex>` of its own URL before the extension (the default
/// names' suffix), with a warning. The same URL listed twice writes its one file twice.
final class OutputNaming: Sendable {
    let template: NameTemplate?
    private let console: Console?
    private let claimed = Mutex<[String: URL]>([:])

    init(template: NameTemplate?, console: Console? = nil) {
        self.template = template
        self.console = console
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
    /// anything else `_`, at most 80 characters; `image` when nothing is left.
    static func stem(for url: URL) -> String {
        var base = url.deletingPathExtension().lastPathComponent
        base = String(base.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }.prefix(80))
        if base.isEmpty || base == "_" { base = "image" }
        return base
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
