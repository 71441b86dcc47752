import Foundation

/// Which redirect targets are followed, by scheme: `http` → `http` or `https`, and
/// `https` → `https`. Anything else is refused, never followed:
/// - `file:`, `data:` and other schemes, so a remote server cannot make Pictor read local files
///   (or learn through error texts whether they exist);
/// - `https` → `http`, a downgrade that would drop TLS (browsers allow it; Pictor does not,
///   since an image fetched over https should not silently travel in clear text).
enum RedirectSchemePolicy {
    /// `nil` when a redirect from `source` to `target` may be followed, else the error.
    static func refusal(from source: URL?, to target: URL?) -> DataLoadingError? {
        let from = source?.scheme?.lowercased() ?? ""
        let to = target?.scheme?.lowercased() ?? ""
        switch (from, to) {
        case ("http", "http"), ("http", "https"), ("https", "https"): return nil
        default: return .redirectNotAllowed(fromScheme: from, toScheme: to)
        }
    }
}
