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
        var fields = urlRequest.allHTTPHeaderFields ?? [:]
        var names = Set(fields.keys.map { $0.lowercased() })
        for (name, value) in request.defaultHeaders where names.insert(name.lowercased()).inserted {
            fields[name] = value
        }
        var lines = fields.map { name, value in
            // "Name:" would remove a header libcurl adds; "Name;" sends it empty.
            value.isEmpty ? "\(name);" : "\(name): \(value)"
        }
        // No `Expect: 100-continue` round trip before a body.
        if !names.contains("expect") { lines.append("Expect:") }
        usesDefaultUserAgent = !names.contains("user-agent")
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
