extension ProcessingOptions {
    /// The options as one normalised imgproxy options path, for cache keys: every field, in a
    /// fixed order, by its short name, with one spelling per value, so any two spellings of the
    /// same request (long or short names, presets, `jpg` or `jpeg`, `t` or `true`, defaults
    /// written or left out, options in another order) give the same string, and different
    /// requests different strings.
    ///
    /// ```text
    /// rs:{type}:{w}:{h}:{el}:{ex}:{ex gravity}:{ex x}:{ex y}/g:{gravity}[:{x}:{y}]/dpr:{dpr}/q:{q}/bg:{rrggbb}/sm:{sm}/cb:{cb}[/f:{format}]
    /// rs:fit:512:512:0:0:ce:0:0/g:ce:0:0/dpr:1/q:80/bg:/sm:1/cb:/f:webp
    /// ```
    ///
    /// Booleans are `0`/`1`; numbers are integers when integral (`2`, not `2.0`), else Swift's
    /// shortest form (`1.5`); `g:sm` has no offsets; `bg:` and `cb:` are empty when unset;
    /// `/f:…` is left out when no format was asked for (the service picks one, and the cache
    /// key adds the output format itself). The cache buster is written as the request spelled
    /// it (it cannot hold `/` or `:`). The string is itself a valid options path that parses
    /// back to equal options (with no presets).
    public var canonicalString: String {
        var parts: [String] = []
        parts.append(["rs", resizingType.rawValue, String(width), String(height), Self.flag(enlarge),
                      Self.flag(extend.enabled), extend.gravity.kind.rawValue,
                      NumberText.format(extend.gravity.xOffset), NumberText.format(extend.gravity.yOffset)]
            .joined(separator: ":"))
        parts.append(gravity.kind == .smart
            ? "g:sm"
            : "g:\(gravity.kind.rawValue):\(NumberText.format(gravity.xOffset)):\(NumberText.format(gravity.yOffset))")
        parts.append("dpr:\(NumberText.format(dpr))")
        parts.append("q:\(quality)")
        parts.append("bg:\(background?.hex ?? "")")
        parts.append("sm:\(Self.flag(stripMetadata))")
        parts.append("cb:\(cacheBuster ?? "")")
        if let format { parts.append("f:\(format.rawValue)") }
        return parts.joined(separator: "/")
    }

    private static func flag(_ value: Bool) -> String { value ? "1" : "0" }
}
