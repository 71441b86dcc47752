import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Freshness, age and validators of a response (RFC 9111 §4.2), for both kinds of cache
/// (``CacheScope``). Pure functions: the fetch stage passes the times.
///
/// - Freshness lifetime (§4.2.1): in a shared cache `s-maxage` first; then `max-age`; else
///   `Expires` − `Date` (both the server's clock, so a server whose clock is off neither shortens
///   nor lengthens it; without `Date`, `Expires` − the local receive time; an invalid `Expires`
///   is in the past); else 10 % of `Date` − `Last-Modified`, capped (the heuristic of §4.2.2);
///   else none. A `max-age` (or, for a shared cache, an `s-maxage`) that is present but not valid
///   delta-seconds makes the response stale: invalid freshness information is not the absence
///   of it.
/// - Age (§4.2.3): the `Age` header plus the time the request took. The apparent age from
///   `Date` is not used: with a server clock that is off it would make every fresh response
///   stale (or the reverse), and caches on the way report their residence time in `Age`.
/// - `expiresAt` (private) and `sharedExpiresAt` = local receive time + lifetime − age;
///   `no-cache` is stale at once (revalidated on every use). `Vary` does not change freshness:
///   ``CacheRules/matches(_:_:)`` serves an entry only to a request with the same selected
///   values.
package enum HTTPFreshness {
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
        metadata.vary = selectingVary(http.value(forHTTPHeaderField: "Vary"))
        setExpiries(of: &metadata, headers: http, exchange: exchange, heuristicCap: heuristicCap, defaultLifetime: defaultLifetime)
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
        if let vary = http.value(forHTTPHeaderField: "Vary") { metadata.vary = selectingVary(vary) }
        setExpiries(of: &metadata, headers: http, exchange: exchange, heuristicCap: heuristicCap)
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
    ///   goes to the URL asked for (the target keeps them in its own entry, under its own key,
    ///   and is revalidated with them when a chain leads to it again).
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
            // The entry stands for every hop: it varies on what each of them varies on.
            if let hopVary = own.vary { metadata.vary = metadata.vary.map { $0 + ", " + hopVary } ?? hopVary }
            let permanent = [301, 308].contains(hop.statusCode)
            if let limit = own.expiresAt ?? (permanent ? nil : exchange.received) {
                metadata.expiresAt = min(metadata.expiresAt ?? limit, limit)
            }
            if let limit = own.sharedExpiresAt ?? (permanent ? nil : exchange.received) {
                metadata.sharedExpiresAt = min(metadata.sharedExpiresAt ?? limit, limit)
            }
        }
        return metadata
    }

    /// The `Vary` value when it names `*` or a header other than `Accept-Encoding` (the body is
    /// stored decoded, so the encoding does not change what is served), else `nil`: the fields
    /// whose request values an entry is matched on (``CacheRequestFacts/varyKey(for:)``).
    package static func selectingVary(_ header: String?) -> String? {
        guard let header else { return nil }
        let names = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        return names.contains(where: { $0 != "accept-encoding" }) ? header : nil
    }

    /// Sets ``DataCacheMetadata/expiresAt`` and ``DataCacheMetadata/sharedExpiresAt`` for a
    /// response with `metadata`'s `Cache-Control` and validators and `http`'s other headers.
    private static func setExpiries(
        of metadata: inout DataCacheMetadata, headers http: HTTPResponseHead, exchange: Exchange, heuristicCap: Double,
        defaultLifetime: Double? = nil
    ) {
        let control = CacheControl(metadata.cacheControl)
        let privateLifetime = lifetime(of: metadata, control: control, headers: http, exchange: exchange,
                                       heuristicCap: heuristicCap, defaultLifetime: defaultLifetime)
        let sharedLifetime: Lifetime
        if control.hasInvalidSharedMaxAge {
            sharedLifetime = .stale
        } else if let sharedMaxAge = control.sharedMaxAge {
            sharedLifetime = .seconds(sharedMaxAge)
        } else {
            sharedLifetime = privateLifetime
        }
        let responseDelay = max(0, exchange.received.timeIntervalSince(exchange.requested))
        let age = Self.age(http) + responseDelay
        func expiry(_ lifetime: Lifetime) -> Date? {
            if control.noCache { return exchange.received }
            switch lifetime {
            case .none: return nil
            case .stale: return exchange.received
            case .expired: return .distantPast
            case .seconds(let seconds): return exchange.received.addingTimeInterval(seconds - age)
            }
        }
        metadata.expiresAt = expiry(privateLifetime)
        metadata.sharedExpiresAt = expiry(sharedLifetime)
    }

    /// A freshness lifetime as the headers give it.
    private enum Lifetime {
        /// No freshness information.
        case none
        /// Freshness information that cannot be read: stale from the start.
        case stale
        /// An `Expires` that is not a date: in the past.
        case expired
        case seconds(Double)
    }

    /// The freshness lifetime a private cache gives the response (shared caches start from
    /// `s-maxage`).
    private static func lifetime(
        of metadata: DataCacheMetadata, control: CacheControl, headers http: HTTPResponseHead, exchange: Exchange,
        heuristicCap: Double, defaultLifetime: Double?
    ) -> Lifetime {
        if control.hasInvalidMaxAge { return .stale }
        if let maxAge = control.maxAge { return .seconds(maxAge) }
        let date = http.value(forHTTPHeaderField: "Date").flatMap(HTTPDate.parse)
        if let expires = http.value(forHTTPHeaderField: "Expires") {
            guard let expiresDate = HTTPDate.parse(expires) else { return .expired }
            return .seconds(expiresDate.timeIntervalSince(date ?? exchange.received))
        }
        if let lastModified = metadata.lastModified.flatMap(HTTPDate.parse) {
            return .seconds(min(heuristicCap, max(0, (date ?? exchange.received).timeIntervalSince(lastModified)) * 0.1))
        }
        if metadata.etag == nil, metadata.lastModified == nil, let defaultLifetime { return .seconds(defaultLifetime) }
        return .none
    }

    /// The `Age` header in seconds, or 0.
    private static func age(_ http: HTTPResponseHead) -> Double {
        http.value(forHTTPHeaderField: "Age").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.map { max(0, $0) } ?? 0
    }
}
