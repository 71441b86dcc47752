internal import CCurl
import Foundation
import PictorCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request's header fields as libcurl's list, and what else of the request the easy handle
/// needs, prepared by the calling task in ``CurlTransport/send(_:)``.
///
/// Why not on the event thread: reading the `URLRequest`'s fields, merging the default headers
/// and formatting the lines is Swift and Foundation work of a few microseconds per request, and
/// the event thread serves every transfer of the transport; there it delays every other
/// download, while the calling task runs on a thread that is otherwise idle.
///
/// libcurl does not copy the list, so it lives as long as the exchange that owns it, which
/// outlives the easy handle's use of it; immutable once built.
final class CurlRequestHeaders: @unchecked Sendable {
    /// The `CURLOPT_HTTPHEADER` list, freed on deinit.
    let list: UnsafeMutablePointer<curl_slist>?
    /// The method, upper-cased (`GET` when the request has none).
    let method: String
    /// Whether the transport's User-Agent is to be sent (the request has none of its own).
    let usesDefaultUserAgent: Bool

    /// Builds the list; `nil` when memory runs out.
    init?(request: TransportRequest) {
        let urlRequest = request.urlRequest
        method = urlRequest.httpMethod?.uppercased() ?? "GET"
        // A request has a handful of fields: plain arrays and ASCII case-insensitive compares
        // cost less here than a lower-cased set and a merged dictionary.
        let own = urlRequest.allHTTPHeaderFields ?? [:]
        var lines: [String] = []
        lines.reserveCapacity(own.count + request.defaultHeaders.count + 1)
        func line(_ name: String, _ value: String) -> String {
            // "Name:" would remove a header libcurl adds; "Name;" sends it empty.
            value.isEmpty ? "\(name);" : "\(name): \(value)"
        }
        for (name, value) in own { lines.append(line(name, value)) }
        var sent = Array(own.keys)
        for (name, value) in request.defaultHeaders where !sent.contains(where: { HTTPResponseHead.sameFieldName($0.utf8, name.utf8) }) {
            lines.append(line(name, value))
            sent.append(name)
        }
        // No `Expect: 100-continue` round trip before a body.
        if !sent.contains(where: { HTTPResponseHead.sameFieldName($0.utf8, "Expect".utf8) }) { lines.append("Expect:") }
        usesDefaultUserAgent = !sent.contains(where: { HTTPResponseHead.sameFieldName($0.utf8, "User-Agent".utf8) })
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let appended = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                return nil
            }
            list = appended
        }
        self.list = list
    }

    deinit { curl_slist_free_all(list) }
}
