import Foundation
import PictorCore

/// Building responses: image headers, conditional requests, refusals.
extension ImageService {
    /// The 200 (or 304, or `HEAD`) answer with `entry`.
    func respond(with entry: ResultEntry, plan: ResultPlan, to request: ServiceRequest) -> ServiceResponse {
        var headers: [(name: String, value: String)] = [
            ("Content-Type", entry.image.format.mimeType),
            ("Content-Length", String(entry.image.data.count)),
            ("ETag", entry.etag),
            ("Cache-Control", cacheControl(for: entry)),
            // A browser must not read an image (or a refusal's text) as another type, an SVG or
            // HTML that an origin served under an image URL among them.
            ("X-Content-Type-Options", "nosniff"),
        ]
        if let lastModified = entry.lastModified.flatMap(Self.headerSafe) { headers.append(("Last-Modified", lastModified)) }
        if plan.variesByAccept { headers.append(("Vary", "Accept")) }
        if let condition = request.header("If-None-Match"), Self.matches(condition, etag: entry.etag) {
            // RFC 9110 §15.4.5: a 304 carries the headers a 200 would, but no content type. Its
            // Content-Length is the 200's (§8.6 allows that one value): servers that write a
            // length on every response (libmicrohttpd) then write the right one.
            return ServiceResponse(status: 304, headers: headers.filter { $0.name != "Content-Type" })
        }
        return ServiceResponse(status: 200, headers: headers, body: request.method == "HEAD" ? Data() : entry.image.data)
    }

    private func cacheControl(for entry: ResultEntry) -> String {
        switch configuration.cacheControl {
        case .maxAge(let seconds):
            return "public, max-age=\(max(0, seconds))"
        case .passthrough(let fallback):
            guard let freshUntil = entry.sourceFreshUntil else { return "public, max-age=\(max(0, fallback))" }
            let remaining = freshUntil.timeIntervalSince(pipeline.configuration.now())
            return "public, max-age=\(max(0, Int(remaining.rounded(.down))))"
        }
    }

    /// Whether an `If-None-Match` value names `etag` (weak comparison, as RFC 9110 §13.1.2
    /// asks for this field: `W/` is ignored) or is `*`.
    static func matches(_ condition: String, etag: String) -> Bool {
        for candidate in condition.split(separator: ",") {
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            if tag == etag { return true }
        }
        return false
    }

    /// `value` when it is short printable ASCII (an origin's header passed on must not carry
    /// CR, LF or other controls), else `nil`.
    static func headerSafe(_ value: String) -> String? {
        guard value.utf8.count <= 64, value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        return value
    }

    /// A refusal: its status, a `text/plain` one-line body, `no-store` and `nosniff`; 405 adds `Allow`,
    /// 429 `Retry-After`.
    static func refusalResponse(_ error: ServiceError, retryAfter: Int) -> ServiceResponse {
        let body = Data((error.reason + "\n").utf8)
        var headers: [(name: String, value: String)] = [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", String(body.count)),
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
        ]
        if error.kind == .methodNotAllowed { headers.append(("Allow", "GET, HEAD")) }
        if error.kind == .overloaded { headers.append(("Retry-After", String(max(1, retryAfter)))) }
        return ServiceResponse(status: error.status, headers: headers, body: body)
    }
}
