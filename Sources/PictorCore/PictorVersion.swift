/// The version of the Pictor package, for the default `User-Agent` and `pictor --version`.
public enum PictorVersion {
    /// Semantic version of this release, e.g. `0.8.0`.
    public static let current = "0.10.0"

    /// The default `User-Agent` of every transport: `Pictor/<version> (+swift; Linux)`.
    public static let userAgent = "Pictor/\(current) (+swift; Linux)"
}
