import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The status line and header fields of an HTTP response, as a ``DataTransport`` read them:
/// what the loading stage needs of a response (status, `Location`, caching headers), without
/// Foundation's `HTTPURLResponse`.
///
/// On Linux, FoundationNetworking's `HTTPURLResponse` initialiser canonicalises every field
/// name through `NSString` and its lookups lower-case every name on each call: a measurable
/// share of the CPU of a download on loopback. Pictor carries this value through the loading
/// and fetch stages instead, and builds the `HTTPURLResponse` (``makeHTTPURLResponse()``) only
/// when a caller asks for one (`ImageResponse.urlResponse`, ``DataLoading/loadData(for:options:)``).
public struct HTTPResponseHead: Sendable, Hashable {
    /// One header field. A name appears once: a transport joins repeated fields with `", "`.
    public struct Field: Sendable, Hashable {
        /// The name as the server spelled it.
        public var name: String
        /// The value, without surrounding whitespace.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The URL the request was sent to (a transport does not follow redirects).
    public var url: URL
    /// The status code, e.g. `200`.
    public var statusCode: Int
    /// The protocol of the status line, e.g. `HTTP/1.1` or `HTTP/2`.
    public var httpVersion: String
    /// The header fields, in the order received.
    public var fields: [Field]

    /// Creates a head.
    ///
    /// - Parameters:
    ///   - url: the URL the request was sent to.
    ///   - statusCode: the status code.
    ///   - httpVersion: the protocol of the status line; `HTTP/1.1` by default.
    ///   - fields: the header fields, each name once; none by default.
    public init(url: URL, statusCode: Int, httpVersion: String = "HTTP/1.1", fields: [Field] = []) {
        self.url = url
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.fields = fields
    }

    /// The head of a Foundation response: its URL (`about:blank` when it has none), status and
    /// header fields, sorted by name (Foundation keeps them in a dictionary, without order).
    /// The protocol version is not kept by Foundation and is given as `HTTP/1.1`.
    public init(_ response: HTTPURLResponse) {
        var fields: [Field] = []
        fields.reserveCapacity(response.allHeaderFields.count)
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String else { continue }
            fields.append(Field(name: name, value: value as? String ?? "\(value)"))
        }
        fields.sort { $0.name < $1.name }
        self.init(url: response.url ?? URL(string: "about:blank")!, statusCode: response.statusCode, fields: fields)
    }

    /// The value of the field named `name`, compared without regard to ASCII case, as
    /// `HTTPURLResponse.value(forHTTPHeaderField:)`; `nil` when absent.
    public func value(forHTTPHeaderField name: String) -> String? {
        fields.first { Self.sameFieldName($0.name.utf8, name.utf8) }?.value
    }

    /// The same response as Foundation's `HTTPURLResponse`, or `nil` when Foundation refuses
    /// it. Each call builds a new one; the pipeline builds it once per response, on demand.
    public func makeHTTPURLResponse() -> HTTPURLResponse? {
        var dictionary: [String: String] = [:]
        dictionary.reserveCapacity(fields.count)
        for field in fields { dictionary[field.name] = field.value }
        return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: dictionary)
    }

    /// ``makeHTTPURLResponse()``, or the status and URL alone should Foundation refuse the
    /// fields: what ``TransportResponse/response`` and the pipeline's `urlResponse` give.
    var httpURLResponse: HTTPURLResponse {
        makeHTTPURLResponse() ?? HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: nil)!
    }

    /// Whether two field names (their UTF-8 bytes) are equal without regard to ASCII case, as
    /// HTTP compares them (RFC 9110 §5.1): only `A`–`Z` fold. The one comparison of field names
    /// for the heads here, the transport's parser and its request headers.
    @inlinable
    package static func sameFieldName<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
        @inline(__always) func folded(_ byte: UInt8) -> UInt8 {
            byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
        }
        return a.count == b.count && zip(a, b).allSatisfy { folded($0) == folded($1) }
    }
}

/// A response as the loading and fetch stages carry it: the HTTP head, when there is one, and
/// the Foundation `URLResponse`, built from the head only when asked for (or given, by a
/// `file:` or `data:` load or a ``DataLoading`` other than ``DataLoader``).
package final class LoadedResponse: Sendable {
    /// The HTTP head; `nil` for a response that is not HTTP (`file:`, `data:`).
    package let head: HTTPResponseHead?
    private let foundation: Mutex<URLResponse?>

    /// A response known by its head; the `URLResponse` is built on first use.
    package init(head: HTTPResponseHead) {
        self.head = head
        foundation = Mutex(nil)
    }

    /// A Foundation response; its head is read from it when it is HTTP.
    package init(_ response: URLResponse) {
        head = (response as? HTTPURLResponse).map { HTTPResponseHead($0) }
        foundation = Mutex(response)
    }

    /// The Foundation response: the one given, or one built from the head (once).
    package var urlResponse: URLResponse {
        foundation.withLock { built in
            if let built { return built }
            // Made with a head or with a response, so one of the two is there.
            let made = head!.httpURLResponse
            built = made
            return made
        }
    }
}
