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

/// Freshness and validators of a response (RFC 9111 §4.2).
enum HTTPFreshness {
    /// The metadata to store for `response` received at `now`.
    ///
    /// Freshness lifetime: `max-age` (minus `Age`), else `Expires` (an invalid date is in the
    /// past), else 10 % of the time since `Last-Modified` capped at `heuristicCap` seconds
    /// (RFC 9111 §4.2.2), else none (`expiresAt == nil`: stale at once). `no-cache` is stale at once.
    static func metadata(for response: URLResponse, data: Data, now: Date, heuristicCap: Double) -> DataCacheMetadata {
        var metadata = DataCacheMetadata(format: ImageFormat.sniff(data))
        guard let http = response as? HTTPURLResponse else { return metadata }
        metadata.etag = http.value(forHTTPHeaderField: "ETag")
        metadata.lastModified = http.value(forHTTPHeaderField: "Last-Modified")
        metadata.cacheControl = http.value(forHTTPHeaderField: "Cache-Control")
        metadata.expiresAt = expiry(of: http, now: now, heuristicCap: heuristicCap)
        return metadata
    }

    /// The refreshed metadata after a 304: headers present on the 304 replace the stored ones
    /// (RFC 9111 §4.3.4), and freshness is computed anew.
    static func refreshed(_ stored: DataCacheMetadata, with response: URLResponse, now: Date, heuristicCap: Double) -> DataCacheMetadata {
        var metadata = stored
        guard let http = response as? HTTPURLResponse else { return metadata }
        if let etag = http.value(forHTTPHeaderField: "ETag") { metadata.etag = etag }
        if let lastModified = http.value(forHTTPHeaderField: "Last-Modified") { metadata.lastModified = lastModified }
        if let cacheControl = http.value(forHTTPHeaderField: "Cache-Control") { metadata.cacheControl = cacheControl }
        let control = CacheControl(metadata.cacheControl)
        if control.noCache {
            metadata.expiresAt = now
        } else if let maxAge = control.maxAge {
            metadata.expiresAt = now.addingTimeInterval(maxAge - age(http))
        } else if let expires = http.value(forHTTPHeaderField: "Expires") {
            metadata.expiresAt = HTTPDate.parse(expires) ?? .distantPast
        } else if let lastModified = metadata.lastModified.flatMap(HTTPDate.parse) {
            metadata.expiresAt = now.addingTimeInterval(min(heuristicCap, max(0, now.timeIntervalSince(lastModified)) * 0.1))
        } else {
            metadata.expiresAt = nil
        }
        return metadata
    }

    /// Whether `metadata` may be served without asking the server at `now`.
    static func isFresh(_ metadata: DataCacheMetadata, now: Date) -> Bool {
        guard !CacheControl(metadata.cacheControl).noCache, let expiresAt = metadata.expiresAt else { return false }
        return now < expiresAt
    }

    private static func expiry(of http: HTTPURLResponse, now: Date, heuristicCap: Double) -> Date? {
        refreshed(DataCacheMetadata(
            etag: nil, lastModified: http.value(forHTTPHeaderField: "Last-Modified"),
            cacheControl: http.value(forHTTPHeaderField: "Cache-Control")), with: http, now: now, heuristicCap: heuristicCap).expiresAt
    }

    /// The `Age` header in seconds, or 0.
    private static func age(_ http: HTTPURLResponse) -> Double {
        http.value(forHTTPHeaderField: "Age").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.map { max(0, $0) } ?? 0
    }
}
