/// Named sets of processing options, in imgproxy's preset syntax: `name=option/option…`, e.g.
/// `thumb=rs:fill:200:200/q:70`.
///
/// A preset named `default` is applied to every request before the path's own options. A path
/// uses others with `preset:name1:name2` (or `pr:`); in presets-only mode
/// (``ProcessingURLParser/onlyPresets``) the path's options segment is a `:`-separated list of
/// preset names instead. Presets may name other presets; a preset already being applied is
/// skipped, as imgproxy does.
///
/// The text is checked for syntax here; the options themselves (names, arguments, presets that
/// are not defined) when a ``ProcessingURLParser`` is made with the table.
public struct PresetTable: Sendable, Hashable {
    private var table: [String: [OptionSegment]]

    /// No presets.
    public init() {
        table = [:]
    }

    /// Presets from a configuration file's text, imgproxy's `IMGPROXY_PRESETS_PATH` format: one
    /// `name=options` a line; blank lines and lines starting with `#` are skipped; spaces
    /// around the line, the name and the options are trimmed.
    ///
    /// - Throws: ``ServiceConfigurationError`` naming the line for a line without exactly one
    ///   `=`, an empty name or value, a segment that is not `option:args`, or a name defined
    ///   twice (imgproxy keeps the last one; a duplicate here is more likely a mistake).
    public init(parsing text: String) throws(ServiceConfigurationError) {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        try self.init(lines.enumerated().map { ("presets line \($0.offset + 1)", $0.element) })
    }

    /// Presets from a list of `name=options` definitions, as imgproxy's `IMGPROXY_PRESETS`
    /// (split on its separator by the caller); rules as ``init(parsing:)``, errors naming the
    /// definition's position from 1.
    public init(definitions: [String]) throws(ServiceConfigurationError) {
        try self.init(definitions.enumerated().map { ("preset definition \($0.offset + 1)", Substring($0.element)) })
    }

    private init(_ lines: [(String, Substring)]) throws(ServiceConfigurationError) {
        table = [:]
        for (location, raw) in lines {
            let line = Self.trimmed(raw)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let halves = line.split(separator: "=", omittingEmptySubsequences: false)
            guard halves.count == 2 else {
                throw ServiceConfigurationError(location: location, message: "expected name=option/option, got \(line)")
            }
            let name = Self.trimmed(halves[0])
            let value = Self.trimmed(halves[1])
            guard !name.isEmpty else { throw ServiceConfigurationError(location: location, message: "empty preset name") }
            guard !value.isEmpty else { throw ServiceConfigurationError(location: location, message: "preset '\(name)' has no options") }
            guard table[String(name)] == nil else {
                throw ServiceConfigurationError(location: location, message: "preset '\(name)' is defined twice")
            }
            var options: [OptionSegment] = []
            for segment in value.split(separator: "/", omittingEmptySubsequences: false) {
                let option: OptionSegment?
                do { option = try OptionSegment.parse(segment) } catch {
                    throw ServiceConfigurationError(location: location, message: error.reason)
                }
                guard let option else {
                    throw ServiceConfigurationError(location: location, message: "'\(segment)' in preset '\(name)' is not an option (option:arguments)")
                }
                options.append(option)
            }
            table[String(name)] = options
        }
    }

    /// The names of the presets, sorted.
    public var names: [String] { table.keys.sorted() }

    /// Whether a preset called `name` is defined.
    public func contains(_ name: String) -> Bool { table[name] != nil }

    func options(named name: Substring) -> [OptionSegment]? { table[String(name)] }

    private static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = text.firstIndex(where: { !isSpace($0) }) else { return text[text.endIndex...] }
        let last = text.lastIndex(where: { !isSpace($0) })!
        return text[first...last]
    }
}
