/// What a health check found of a cache tier (``DataCaching/health``,
/// ``SharedDataCache/health(timeout:)``): a service's `/health` answers from it.
public enum TierHealth: Sendable, Hashable {
    /// The tier can serve and store entries.
    case usable
    /// The tier cannot be used as configured. `reason` is one line for an operator, e.g.
    /// `the cache directory is missing`; it names no path, key or password, since a health
    /// endpoint may be reachable by anyone.
    case unusable(reason: String)
}
