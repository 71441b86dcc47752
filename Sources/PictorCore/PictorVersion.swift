/// The version of the Pictor package, for the default `User-Agent` and `pictor --version`.
public enum PictorVersion {
    /// Semantic version of this release, e.g. `0.1.0`.
    public static let current = "0.1.0"
}
