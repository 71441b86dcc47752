/// Reads imgproxy processing paths: checks the signature, then parses the options and the
/// source.
///
/// ```text
/// /{signature}/{option}/{option}…/plain/{percent-encoded source URL}[@{extension}]
/// /{signature}/{option}/{option}…/{base64url(source URL), '/' anywhere}[.{extension}]
/// ```
///
/// Each option is `name:arg:arg…`; options end at the first segment without `:`. Supported:
/// `resize`/`rs`, `size`/`s`, `resizing_type`/`rt`, `width`/`w`, `height`/`h`,
/// `enlarge`/`el`, `extend`/`ex`, `gravity`/`g`, `dpr`, `quality`/`q`, `format`/`f`/`ext`,
/// `background`/`bg`, `strip_metadata`/`sm`, `cachebuster`/`cb`, `preset`/`pr`, with
/// imgproxy's arguments and defaults (``ProcessingOptions``). Any other name is refused.
///
/// Order, as in imgproxy: the `default` preset, then the path's options left to right (a
/// later one overrides), then the extension (which overrides `format`).
///
/// ```swift
/// let parser = try ProcessingURLParser(
///     signature: SignaturePolicy(hexKeys: [key], hexSalts: [salt]),
///     presets: PresetTable(parsing: "thumb=rs:fill:200:200/q:70"))
/// let url = try parser.parse("/oKfU…/pr:thumb/plain/https%3A%2F%2Forigin.example%2Fa.jpg@webp")
/// url.source.url                  // "https://origin.example/a.jpg"
/// url.options.canonicalString     // "rs:fill:200:200:0:0:ce:0:0/g:ce:0:0/dpr:1/q:70/bg:/sm:1/cb:/f:webp"
/// ```
///
/// Parsing is linear in the path's length, which ``ServiceLimits/maxPathLength`` bounds, and
/// the options applied (presets expanded) are bounded by ``ServiceLimits``.
public struct ProcessingURLParser: Sendable {
    /// The signature check.
    public let signature: SignaturePolicy
    /// The named presets (`default` applies to every request).
    public let presets: PresetTable
    /// Presets-only mode (imgproxy's `IMGPROXY_ONLY_PRESETS`): the segment after the signature
    /// is a `:`-separated list of preset names (`/{signature}/thumb:sharp/plain/…`) and no
    /// other option can be written in the path.
    public let onlyPresets: Bool
    /// The bounds on a path.
    public let limits: ServiceLimits

    /// A parser; every preset is applied once to default options here, so that a mistake in
    /// the presets fails at start-up rather than on the first request that uses them.
    ///
    /// - Throws: ``ServiceConfigurationError`` naming the preset whose options are unknown,
    ///   malformed, name a preset that is not defined, or expand past the limits.
    public init(
        signature: SignaturePolicy,
        presets: PresetTable = PresetTable(),
        onlyPresets: Bool = false,
        limits: ServiceLimits = ServiceLimits()
    ) throws(ServiceConfigurationError) {
        self.signature = signature
        self.presets = presets
        self.onlyPresets = onlyPresets
        self.limits = limits
        for name in presets.names {
            var applier = OptionApplier(presets: presets, limits: limits)
            var options = ProcessingOptions()
            do { try applier.applyPresets([Substring(name)], to: &options, chain: []) } catch {
                throw ServiceConfigurationError(location: "preset '\(name)'", message: error.reason)
            }
        }
    }

    /// The request `path` (a request target: `/`, the signature, the rest; a `?query` is
    /// ignored, as imgproxy ignores it), verified and parsed.
    ///
    /// - Throws: ``ServiceError``: 414 for a path over the limit; 404 when it is not
    ///   `/{signature}/{something}`; 403 for a signature that does not verify; 400 for an
    ///   unknown or malformed option, an unknown preset, too many options, a bad source or
    ///   extension. The order of checks is that one, so an unsigned request learns nothing
    ///   about the options.
    public func parse(_ path: String) throws(ServiceError) -> ProcessingURL {
        guard path.utf8.count <= limits.maxPathLength else {
            throw ServiceError(.pathTooLong, reason: "the path is longer than \(limits.maxPathLength) bytes")
        }
        // The delimiters are found among Unicode scalars, never Characters: a combining mark
        // after `/` or `:` would join it into one Character and hide it, where imgproxy and the
        // client that signed the path see the byte.
        var target = path[...].unicodeScalars
        if let query = target.firstIndex(of: "?") { target = target[..<query] }
        if target.first == "/" { target = target.dropFirst() }
        guard let slash = target.firstIndex(of: "/"), slash > target.startIndex,
              target.index(after: slash) < target.endIndex
        else { throw ServiceError(.notAnImageURL, reason: "not an image path: expected /{signature}/{options}/{source}") }
        let signatureSegment = Substring(target[..<slash])
        let rest = PathNormalization.redenormalize(Substring(target[target.index(after: slash)...]))
        // imgproxy signs `/` + everything after the signature's `/`, whatever follows (an empty
        // options segment makes that `//…`).
        try signature.verify(signature: signatureSegment, path: Substring("/" + rest))

        let parts = rest.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false).map(Substring.init)
        var applier = OptionApplier(presets: presets, limits: limits)
        var options = ProcessingOptions()
        if presets.contains("default") {
            try applier.applyPresets(["default"], to: &options, chain: [])
        }
        let sourceStart: Int
        if onlyPresets {
            let names = parts[0].unicodeScalars.split(separator: ":", maxSplits: ServiceLimits.maxArguments, omittingEmptySubsequences: false)
                .map(Substring.init)
            guard names.count <= ServiceLimits.maxArguments else {
                throw ServiceError(.tooManyOptions, reason: "more than \(ServiceLimits.maxArguments) presets in the path")
            }
            try applier.applyPresets(names, to: &options, chain: [])
            sourceStart = 1
        } else {
            if ResizingType(rawValue: String(parts[0])) != nil {
                throw ServiceError(.unsupportedURLFormat, reason: "the basic URL format (/{signature}/{resizing type}/{width}/…) is not supported")
            }
            var index = 0
            // An empty segment (`//`, often an empty list of options joined in): neither an
            // option nor a source, and read as a base64 source it would be named wrongly.
            if let empty = parts.indices.dropLast().first(where: { parts[$0].isEmpty }),
               parts[..<empty].allSatisfy({ $0.unicodeScalars.contains(":") }) {
                throw ServiceError(.unknownOption, reason: "an empty path segment where an option or the source was expected")
            }
            while index < parts.count, let option = try OptionSegment.parse(parts[index]) {
                guard index < limits.maxOptions else {
                    throw ServiceError(.tooManyOptions, reason: "more than \(limits.maxOptions) options in the path")
                }
                try applier.apply(option, to: &options)
                index += 1
            }
            sourceStart = index
        }
        let (source, ext) = try SourceDecoding.decode(parts[sourceStart...])
        if let ext { options.format = try OptionApplier.format(ext, option: "extension") }
        return ProcessingURL(options: options, source: source, presets: applier.usedPresets)
    }
}
