import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which redirects are followed and what the next hop sends: the one redirect policy of the
/// loading stage (``DataLoader`` applies it; transports never follow redirects themselves).
///
/// - Schemes: `http` → `http` or `https`, and `https` → `https`. Anything else is refused,
///   never followed: `file:`, `data:` and other schemes, so a remote server cannot make Pictor
///   read local files (or learn through error texts whether they exist); and `https` → `http`,
///   a downgrade that would drop TLS.
/// - Targets: ``DataLoader/Configuration/redirectFilter``, when set, decides each hop's target
///   once the scheme rule allows it (a server's source rules: its allowed origins, no private
///   addresses).
/// - Hops: at most ``DataLoader/Configuration/maximumRedirects``; a URL seen twice is a loop.
/// - The next request: 303 (and 301/302 after a non-GET) becomes a GET without body;
///   `Authorization` and `Cookie` are dropped when the host or port changes; conditional
///   headers (`If-None-Match`, `If-Modified-Since`) are dropped on every hop, because the
///   validators belong to the response that produced them, not to a redirect target (the
///   pipeline's fetch stage may then add the target's own, from the target's own entry:
///   ``DataLoadOptions/redirectTargets``).
struct RedirectPolicy: Sendable {
    /// Statuses that redirect.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    let maximumRedirects: Int
    let filter: RedirectFilter?
    private var hops = 0
    private var visited: Set<String>

    init(maximumRedirects: Int, start: URL?, filter: RedirectFilter? = nil) {
        self.maximumRedirects = maximumRedirects
        self.filter = filter
        visited = [start?.absoluteString ?? ""]
    }

    /// The redirect target of the response with `head` to `request`, or `nil` when it is not a
    /// redirect (not a 3xx redirect status, or no usable `Location`).
    static func target(of head: HTTPResponseHead, for request: URLRequest) -> URL? {
        guard redirectStatuses.contains(head.statusCode),
              let location = head.value(forHTTPHeaderField: "Location"), !location.isEmpty else { return nil }
        return URL(string: URLNormalization.percentEncoded(location), relativeTo: request.url)?.absoluteURL
    }

    /// `nil` when a redirect from `source` to `target` may be followed by scheme, else the error.
    static func refusal(from source: URL?, to target: URL?) -> DataLoadingError? {
        let from = source?.scheme?.lowercased() ?? ""
        let to = target?.scheme?.lowercased() ?? ""
        switch (from, to) {
        case ("http", "http"), ("http", "https"), ("https", "https"): return nil
        default: return .redirectNotAllowed(fromScheme: from, toScheme: to)
        }
    }

    /// Records one hop from `request` to `target` and returns the request to send next.
    ///
    /// - Throws: ``DataLoadingError/redirectNotAllowed(fromScheme:toScheme:)``,
    ///   ``DataLoadingError/redirectRefused`` (the filter said no) or
    ///   ``DataLoadingError/tooManyRedirects`` (limit or loop).
    mutating func follow(_ request: URLRequest, to target: URL, status: Int) throws(DataLoadingError) -> URLRequest {
        if let refusal = Self.refusal(from: request.url, to: target) { throw refusal }
        if let filter, !filter(target) { throw .redirectRefused }
        hops += 1
        guard hops <= maximumRedirects, visited.insert(target.absoluteString).inserted else { throw .tooManyRedirects }
        var next = request
        next.url = target
        if status == 303 || ((status == 301 || status == 302) && request.httpMethod != "GET" && request.httpMethod != "HEAD") {
            next.httpMethod = "GET"
            next.httpBody = nil
        }
        if target.host?.lowercased() != request.url?.host?.lowercased() || target.port != request.url?.port {
            next.setValue(nil, forHTTPHeaderField: "Authorization")
            next.setValue(nil, forHTTPHeaderField: "Cookie")
        }
        next.setValue(nil, forHTTPHeaderField: "If-None-Match")
        next.setValue(nil, forHTTPHeaderField: "If-Modified-Since")
        return next
    }
}
