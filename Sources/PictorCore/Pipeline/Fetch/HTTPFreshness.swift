import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The parts of `Cache-Control` (RFC 9111 §5.2.2) a private image cache acts on.
struct CacheControl: Sendable, Hashable {
    /// `max-age` in seconds.
    var maxAge: Double?
    /// `no-store`: never write the response to disk.
    var noStore = false
    /// `no-cache`: store, but revalidate before every use.
    var noCache = false
    /// `must-revalidate`: never serve it stale (not even when the network fails).
    var mustRevalidate = false

    /// Parses a header value such as `public, max-age=3600, must-revalidate`.
    init(_ header: String?) {
        for directive in (header ?? "").split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
            }
            guard let name = parts.first else { continue }
            switch name {
            case "max-age": maxAge = parts.count > 1 ? Double(parts[1]).map { max(0, $0) } : nil
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "must-revalidate", "proxy-revalidate": mustRevalidate = true
            default: break
            }
        }
    }
}

/// Freshness, age and validators of a response (RFC 9111 §4.2), as a private cache computes
/// them. Pure functions: the fetch stage passes the times.
///
/// - Freshness lifetime (§4.2.1): `max-age`; else `Expires` − `Date` (both the server's clock,
///   so a server whose clock is off neither shortens nor lengthens it; without `Date`, `Expires`
///   − the local receive time; an invalid `Expires` is in the past); else 10 % of `Date` −
///   `Last-Modified`, capped (the heuristic of §4.2.2); else none.
/// - Age (§4.2.3): the `Age` header plus the time the request took. The apparent age from
///   `Date` is not used: with a server clock that is off it would make every fresh response
///   stale (or the reverse), and caches on the way report their residence time in `Age`.
/// - `expiresAt` = local receive time + lifetime − age; `no-cache`, `Vary: *` and a `Vary` on
///   any header but `Accept-Encoding` are stale at once (revalidated on every use).
enum HTTPFreshness {
    /// When a response was asked for and received, on the local clock.
    struct Exchange: Sendable {
        var requested: Date
        var received: Date
    }

    /// The metadata to store for `response`.
    ///
    /// - Parameter defaultLifetime: the freshness, in seconds, of a response that gives neither
    ///   freshness (`max-age`, `Expires`) nor a validator (`ETag`, `Last-Modified`): without a
    ///   validator such an entry could only ever be downloaded again, so a cache that honoured it
    ///   would store images it never serves. `nil` leaves it stale.
    static func metadata(
        for head: HTTPResponseHead?, data: Data, exchange: Exchange, heuristicCap: Double, defaultLifetime: Double? = nil
    ) -> DataCacheMetadata {
        var metadata = DataCacheMetadata(format: ImageFormat.sniff(data))
        guard let http = head else { return metadata }
        metadata.etag = http.value(forHTTPHeaderField: "ETag")
        metadata.lastModified = http.value(forHTTPHeaderField: "Last-Modified")
        metadata.cacheControl = http.value(forHTTPHeaderField: "Cache-Control")
        metadata.vary = unmatchableVary(http.value(forHTTPHeaderField: "Vary"))
        metadata.expiresAt = expiry(of: metadata, headers: http, exchange: exchange, heuristicCap: heuristicCap, defaultLifetime: defaultLifetime)
        return metadata
    }

    /// The refreshed metadata after a 304: headers present on the 304 replace the stored ones
    /// (RFC 9111 §4.3.4), and freshness is computed anew.
    static func refreshed(_ stored: DataCacheMetadata, with head: HTTPResponseHead?, exchange: Exchange, heuristicCap: Double) -> DataCacheMetadata {
        var metadata = stored
        guard let http = head else { return metadata }
        if let etag = http.value(forHTTPHeaderField: "ETag") { metadata.etag = etag }
        if let lastModified = http.value(forHTTPHeaderField: "Last-Modified") { metadata.lastModified = lastModified }
        if let cacheControl = http.value(forHTTPHeaderField: "Cache-Control") { metadata.cacheControl = cacheControl }
        if let vary = http.value(forHTTPHeaderField: "Vary") { metadata.vary = unmatchableVary(vary) }
        metadata.expiresAt = expiry(of: metadata, headers: http, exchange: exchange, heuristicCap: heuristicCap)
        return metadata
    }

    /// The metadata to store under the URL asked for when the answer came through `redirects`
    /// (in order): the redirects' own headers limit it, since the stored entry stands for the
    /// whole chain (RFC 9111 §3: each response is cached on its own terms).
    ///
    /// - A redirect with `no-store` makes the entry unstorable (`nil`).
    /// - Freshness is the earliest of the final response's and each redirect's: a redirect's
    ///   explicit `max-age` / `Expires`; without one, a permanent redirect (301, 308, cacheable
    ///   by default) does not limit it and a temporary one (302, 303, 307) makes it stale at
    ///   once, so the redirect is asked again on the next use.
    /// - Validators are dropped: they belong to the redirect target, and a conditional request
    ///   goes to the URL asked for (a stale redirected entry is downloaded again).
    static func metadata(
        _ final: DataCacheMetadata, throughRedirects redirects: [HTTPResponseHead], exchange: Exchange, heuristicCap: Double
    ) -> DataCacheMetadata? {
        guard !redirects.isEmpty else { return final }
        var metadata = final
        metadata.etag = nil
        metadata.lastModified = nil
        for hop in redirects {
            let own = Self.metadata(for: hop, data: Data(), exchange: exchange, heuristicCap: heuristicCap)
            if CacheControl(own.cacheControl).noStore { return nil }
            if metadata.vary == nil { metadata.vary = own.vary }
            let limit: Date? = own.expiresAt ?? ([301, 308].contains(hop.statusCode) ? nil : exchange.received)
            if let limit { metadata.expiresAt = min(metadata.expiresAt ?? limit, limit) }
        }
        return metadata
    }

    /// Whether an entry stored with `metadata` may be served without asking the server at `now`
    /// under `policy`: always under ``ImagePipeline/HTTPCachePolicy/ignoreHTTPHeaders``, while
    /// fresh under ``ImagePipeline/HTTPCachePolicy/http``. The one rule for originals (the fetch
    /// state machine) and processed variants alike.
    static func serves(_ metadata: DataCacheMetadata, under policy: ImagePipeline.HTTPCachePolicy, now: Date) -> Bool {
        policy == .ignoreHTTPHeaders || isFresh(metadata, now: now)
    }

    /// Whether `metadata` may be served without asking the server at `now`.
    static func isFresh(_ metadata: DataCacheMetadata, now: Date) -> Bool {
        guard metadata.vary == nil, !CacheControl(metadata.cacheControl).noCache, let expiresAt = metadata.expiresAt else { return false }
        return now < expiresAt
    }

    /// The `Vary` value when it names `*` or a header other than `Accept-Encoding` (the body is
    /// stored decoded, so the encoding does not change what is served), else `nil`.
    static func unmatchableVary(_ header: String?) -> String? {
        guard let header else { return nil }
        let names = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        return names.contains(where: { $0 != "accept-encoding" }) ? header : nil
    }

    /// When the response stops being fresh on the local clock, or `nil` when it has no
    /// freshness information.
    private static func expiry(
        of metadata: DataCacheMetadata, headers http: HTTPResponseHead, exchange: Exchange, heuristicCap: Double, defaultLifetime: Double? = nil
    ) -> Date? {
        let control = CacheControl(metadata.cacheControl)
        if control.noCache || metadata.vary != nil { return exchange.received }
        let date = http.value(forHTTPHeaderField: "Date").flatMap(HTTPDate.parse)
        let lifetime: Double
        if let maxAge = control.maxAge {
            lifetime = maxAge
        } else if let expires = http.value(forHTTPHeaderField: "Expires") {
            guard let expiresDate = HTTPDate.parse(expires) else { return .distantPast }
            lifetime = expiresDate.timeIntervalSince(date ?? exchange.received)
        } else if let lastModified = metadata.lastModified.flatMap(HTTPDate.parse) {
            lifetime = min(heuristicCap, max(0, (date ?? exchange.received).timeIntervalSince(lastModified)) * 0.1)
        } else if metadata.etag == nil, metadata.lastModified == nil, let defaultLifetime {
            lifetime = defaultLifetime
        } else {
            return nil
        }
        let responseDelay = max(0, exchange.received.timeIntervalSince(exchange.requested))
        let age = Self.age(http) + responseDelay
        return exchange.received.addingTimeInterval(lifetime - age)
    }

    /// The `Age` header in seconds, or 0.
    private static func age(_ http: HTTPResponseHead) -> Double {
        http.value(forHTTPHeaderField: "Age").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.map { max(0, $0) } ?? 0
    }
}
