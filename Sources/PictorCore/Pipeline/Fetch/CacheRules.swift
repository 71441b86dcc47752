import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which kind of cache a tier is, in RFC 9111's sense (§1): whose responses it may keep and
/// whom it may serve them to.
public enum CacheScope: String, Sendable, Hashable, CaseIterable, Codable {
    /// One user's cache: an app's or a command's own memory and disk. It may keep `private`
    /// responses and responses to requests with `Authorization`, and uses `max-age`.
    case `private`
    /// A cache that many users read: the shared fleet tier always, and every tier of a service
    /// that answers many clients. It never keeps a `private` response; it keeps a response to a
    /// request with `Authorization` only when the response says `public`, `s-maxage` or
    /// `must-revalidate` (§3.5); `s-maxage` is its freshness lifetime; it honours
    /// `proxy-revalidate`.
    case shared
}

/// What a request brings to the caches' decisions: its credentials (RFC 9111 §3.5) and the
/// values of the header fields a response's `Vary` names (§4.1).
struct CacheRequestFacts: Sendable {
    /// The request as the caller built it (before the loader adds its own defaults).
    var urlRequest: URLRequest?
    /// Hashes the `Vary`-selected values, so that entries record them without holding them
    /// (they may be credentials or cookies); `nil` leaves such entries unmatchable.
    var hashing: (any CacheKeyHashing)?

    /// A request with no header fields and no credentials.
    init() {}

    init(_ urlRequest: URLRequest, hashing: (any CacheKeyHashing)?) {
        self.urlRequest = urlRequest
        self.hashing = hashing
    }

    /// A redirect on the way put credentials in the URL it sent the request to (a user name or
    /// password in its `Location`, sent as Basic authorization from there on).
    var credentialsAddedByRedirect = false

    /// Whether the request carries credentials: an `Authorization` field, or a user name or
    /// password in its URL (which the loader sends as Basic authorization), or in the URL a
    /// redirect sent it to.
    var isAuthorized: Bool {
        if credentialsAddedByRedirect { return true }
        guard let urlRequest else { return false }
        if urlRequest.value(forHTTPHeaderField: "Authorization") != nil { return true }
        return urlRequest.url.map { $0.user != nil || $0.password != nil } ?? false
    }

    /// The key of this request's values of the fields `vary` names (RFC 9111 §4.1): the digest
    /// of each name (lower-cased, sorted, `Accept-Encoding` left out since bodies are stored
    /// decoded) with its value (trimmed) or its absence. `nil` when `vary` has `*` (it never
    /// matches), is not a list of field names (`Accept Cookie`, `Accept;Cookie`: which fields it
    /// meant is unknown), or there is no hashing.
    func varyKey(for vary: String) -> String? {
        let names = Set(vary.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
            .subtracting(["", "accept-encoding"]).sorted()
        guard !names.contains("*"), let hashing,
              names.allSatisfy({ $0.allSatisfy(CacheControl.isTokenCharacter) }) else { return nil }
        var text = "vary-key.v1"
        for name in names {
            text += "\n" + name
            if let value = urlRequest?.value(forHTTPHeaderField: name) {
                text += ":" + value.trimmingCharacters(in: .whitespaces)
            } else {
                text += "\u{0}"
            }
        }
        return hashing.digest(for: text)
    }
}

/// The rules of one kind of cache (``CacheScope``) under one ``ImagePipeline/HTTPCachePolicy``:
/// what may be stored, which entry may answer a request, when it is fresh, and whether it may be
/// served stale. The one place these are decided for every tier (the fetch state machine for
/// originals, the variant path for processed images); pure, unit-tested without I/O.
struct CacheRules: Sendable, Hashable {
    /// Why a response is not written to a tier; when several apply, the first in this order is
    /// the one reported (and counted).
    enum Refusal: Sendable, Hashable, Comparable {
        /// `no-store` (under ``ImagePipeline/HTTPCachePolicy/http``).
        case noStore
        /// `private`, in a shared cache.
        case `private`
        /// A response to a request with credentials that does not allow sharing (no `public`,
        /// `s-maxage` or `must-revalidate`), in a shared cache.
        case authorized
        /// Its `Vary` can never be matched (`*`, or no hashing for the values it selects).
        case unmatchableVary

        static func < (lhs: Refusal, rhs: Refusal) -> Bool { lhs.order < rhs.order }

        /// `private` first, `authorized` last: a refusal that holds for any request is named
        /// before one that holds for this request only.
        private var order: Int {
            switch self {
            case .private: 0
            case .noStore: 1
            case .unmatchableVary: 2
            case .authorized: 3
            }
        }
    }

    let scope: CacheScope
    let policy: ImagePipeline.HTTPCachePolicy

    /// Whether `Vary` and credentials are set aside: a private cache under
    /// ``ImagePipeline/HTTPCachePolicy/ignoreHTTPHeaders`` serves any entry it has, as that
    /// policy promises; a shared cache never does.
    private var ignoresRequest: Bool { scope == .private && policy == .ignoreHTTPHeaders }

    /// Why a response stored with `metadata`, answering `request`, may not be written; `nil`
    /// when it may.
    ///
    /// A shared cache also refuses what it cannot read in full (a malformed `Cache-Control`
    /// directive, counted as `private`: the unread part may have said so) and `no-store` under
    /// every policy; ``refusal(ofRedirect:for:)`` adds the redirects' own terms.
    func refusal(toStore metadata: DataCacheMetadata, for request: CacheRequestFacts) -> Refusal? {
        let control = CacheControl(metadata.cacheControl)
        if scope == .shared, control.isPrivate || control.hasMalformedDirective { return .private }
        if control.noStore, policy.followsHTTPHeaders || scope == .shared { return .noStore }
        if !ignoresRequest, metadata.vary != nil, metadata.varyKey == nil { return .unmatchableVary }
        if scope == .shared, request.isAuthorized, !Self.allowsAuthorizedSharing(control) { return .authorized }
        return nil
    }

    /// Why an answer reached through a redirect with `head` may not be written under the URL
    /// asked for, on the redirect's own terms (the stored entry stands for the whole chain, RFC
    /// 9111 §3): in a shared cache, a `private` (or unreadable) or `no-store` redirect (under
    /// every policy), and for a request with credentials one that does not say `public`,
    /// `s-maxage` or `must-revalidate`. (Under ``ImagePipeline/HTTPCachePolicy/http`` a
    /// `no-store` redirect makes the chain unstorable in every tier before this is asked.)
    func refusal(ofRedirect head: HTTPResponseHead, for request: CacheRequestFacts) -> Refusal? {
        guard scope == .shared else { return nil }
        let control = CacheControl(head.value(forHTTPHeaderField: "Cache-Control"))
        if control.isPrivate || control.hasMalformedDirective { return .private }
        if control.noStore { return .noStore }
        if request.isAuthorized, !Self.allowsAuthorizedSharing(control) { return .authorized }
        return nil
    }

    /// Whether an entry stored with `metadata` may answer `request` at all (fresh or not, and
    /// as a source of validators): its `Vary`-selected values are the request's, and in a
    /// shared cache a request with credentials gets only an entry that allows it.
    func matches(_ metadata: DataCacheMetadata, _ request: CacheRequestFacts) -> Bool {
        if ignoresRequest { return true }
        if scope == .shared, request.isAuthorized, !Self.allowsAuthorizedSharing(CacheControl(metadata.cacheControl)) {
            return false
        }
        guard let vary = metadata.vary else { return true }
        guard let stored = metadata.varyKey, let asked = request.varyKey(for: vary) else { return false }
        return stored == asked
    }

    /// Whether an entry stored with `metadata` may be served without asking the server at
    /// `now`: always under ``ImagePipeline/HTTPCachePolicy/ignoreHTTPHeaders``; under
    /// ``ImagePipeline/HTTPCachePolicy/http`` while this scope's expiry
    /// (``DataCacheMetadata/expiresAt``, or ``DataCacheMetadata/sharedExpiresAt`` in a shared
    /// cache) is ahead and it has no `no-cache`.
    func isFresh(_ metadata: DataCacheMetadata, now: Date) -> Bool {
        if policy == .ignoreHTTPHeaders { return true }
        guard let expiry = scope == .shared ? metadata.sharedExpiresAt : metadata.expiresAt else { return false }
        return now < expiry && !CacheControl(metadata.cacheControl).noCache
    }

    /// Whether a stale entry stored with `metadata` may stand in at `now` when revalidation
    /// fails (RFC 9111 §4.2.4, RFC 5861 §4): not with `no-cache` or `must-revalidate`, nor in
    /// a shared cache with `proxy-revalidate`; with `stale-if-error=N` only for N seconds after
    /// this scope's expiry (never for an entry that had none), which also lifts the
    /// `proxy-revalidate` that `s-maxage` implies (§5.2.2.10) in a shared cache, since the
    /// server said so explicitly; without it, at any age, except in a shared cache with
    /// `s-maxage`.
    func servesStale(_ metadata: DataCacheMetadata, now: Date) -> Bool {
        let control = CacheControl(metadata.cacheControl)
        if control.noCache || control.mustRevalidate { return false }
        if scope == .shared && control.proxyRevalidate { return false }
        if let window = control.staleIfError { return isWithin(window, afterExpiryOf: metadata, now: now) }
        return scope == .private || !control.hasSharedMaxAge
    }

    /// Whether a stale entry stored with `metadata` may answer at `now` while the fetch
    /// revalidates it in the background: under
    /// ``ImagePipeline/HTTPCachePolicy/returnCachedThenRevalidate`` any entry; under
    /// ``ImagePipeline/HTTPCachePolicy/http`` within the `stale-while-revalidate=N` seconds
    /// after this scope's expiry (RFC 5861 §3), never with `no-cache`, `must-revalidate`, or
    /// in a shared cache `proxy-revalidate` (an `s-maxage` beside it does not forbid it: the
    /// server asked for both, as CDNs' headers do).
    func servesWhileRevalidating(_ metadata: DataCacheMetadata, now: Date) -> Bool {
        switch policy {
        case .returnCachedThenRevalidate: return true
        case .ignoreHTTPHeaders: return false
        case .http: break
        }
        let control = CacheControl(metadata.cacheControl)
        if control.noCache || control.mustRevalidate || (scope == .shared && control.proxyRevalidate) { return false }
        guard let window = control.staleWhileRevalidate else { return false }
        return isWithin(window, afterExpiryOf: metadata, now: now)
    }

    /// Whether `now` is less than `window` seconds past this scope's expiry of `metadata`
    /// (`false` when it has none: when it went stale is unknown).
    private func isWithin(_ window: Double, afterExpiryOf metadata: DataCacheMetadata, now: Date) -> Bool {
        guard let expiry = scope == .shared ? metadata.sharedExpiresAt : metadata.expiresAt else { return false }
        return now < expiry.addingTimeInterval(window)
    }

    /// The metadata a processed variant made from an original stored with `original` is kept
    /// with: the original's freshness (`expiresAt`, `sharedExpiresAt`), `Cache-Control`, `Vary`
    /// and its key, so that the variant answers only what the original would, and only while
    /// the original would (not its validators, which belong to the original bytes). `nil` when
    /// no variant may be kept: the original may not be ( ``refusal(toStore:for:)``), or, under
    /// ``ImagePipeline/HTTPCachePolicy/http``, it has no freshness to inherit (it could never
    /// answer). Under ``ImagePipeline/HTTPCachePolicy/ignoreHTTPHeaders`` only `Vary` is kept.
    func variantMetadata(inheriting original: DataCacheMetadata, for request: CacheRequestFacts) -> DataCacheMetadata? {
        guard refusal(toStore: original, for: request) == nil else { return nil }
        var metadata = DataCacheMetadata()
        if policy.followsHTTPHeaders {
            guard (scope == .shared ? original.sharedExpiresAt : original.expiresAt) != nil else { return nil }
            metadata.expiresAt = original.expiresAt
            metadata.sharedExpiresAt = original.sharedExpiresAt
            metadata.cacheControl = original.cacheControl
        }
        metadata.vary = original.vary
        metadata.varyKey = original.varyKey
        return metadata
    }

    /// Whether an image made from an original stored with `original` (`nil`: not known, as for
    /// an image made from a stored variant) is kept in the memory cache: always in a private
    /// cache; in a shared one only when the original may be stored.
    func keepsInMemory(madeFrom original: DataCacheMetadata?, for request: CacheRequestFacts) -> Bool {
        guard scope == .shared, let original else { return true }
        return refusal(toStore: original, for: request) == nil
    }

    /// RFC 9111 §3.5: a response to a request with `Authorization` may be reused by a shared
    /// cache only when it says `public`, `s-maxage` or `must-revalidate`.
    private static func allowsAuthorizedSharing(_ control: CacheControl) -> Bool {
        control.isPublic || control.hasSharedMaxAge || control.mustRevalidate
    }
}
