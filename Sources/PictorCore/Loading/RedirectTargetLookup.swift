import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the pipeline's fetch stage says of a redirect target before ``DataLoader`` requests it
/// (``DataLoadOptions/redirectTargets``): the target's own cache entry may answer for it.
enum RedirectTargetAnswer: Sendable, Equatable {
    /// Request the target as the redirect says.
    case request
    /// Request the target with these validators, those of its own stale entry (a `304`
    /// confirms that entry).
    case revalidate(etag: String?, lastModified: String?)
    /// The target's own entry answers: the load ends at this hop, without requesting it.
    case cached
}

/// Asked by ``DataLoader`` for each redirect target, with the request it would send next, once
/// ``RedirectPolicy`` allowed the hop (scheme, ``DataLoader/Configuration/redirectFilter``,
/// limit, loops): a target the policy refuses is never looked up, cached or not.
typealias RedirectTargetLookup = @Sendable (URLRequest) async -> RedirectTargetAnswer
