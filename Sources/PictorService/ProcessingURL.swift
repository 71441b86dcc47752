/// One parsed, verified request path: what to fetch and what to do to it.
public struct ProcessingURL: Sendable, Hashable {
    /// The processing options, with the `default` preset, the path's options and presets, and
    /// the extension applied.
    public var options: ProcessingOptions
    /// The image to fetch.
    public var source: SourceURL
    /// The presets applied, in order (`default` first when defined; nested ones after the
    /// preset that named them). For logs and metrics: ``options`` already holds their effect.
    public var presets: [String]

    /// A parsed path.
    public init(options: ProcessingOptions, source: SourceURL, presets: [String] = []) {
        self.options = options
        self.source = source
        self.presets = presets
    }
}
