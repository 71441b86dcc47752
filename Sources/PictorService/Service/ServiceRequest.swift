/// One HTTP request as ``ImageService`` reads it: the method, the request target and the
/// header fields, with no socket behind it. Any HTTP server fills one in.
public struct ServiceRequest: Sendable, Hashable {
    /// The method as received, e.g. `GET`; compared case-sensitively, as RFC 9110 §9.1 says.
    public var method: String
    /// The request target, from its `/`: `/{signature}/{options}/plain/{source}`; a `?query`
    /// is ignored.
    public var path: String
    /// The header fields in the order received, names as sent. Looked up case-insensitively;
    /// a field sent several times is read as its values joined with `, ` (RFC 9110 §5.3).
    public var headers: [(name: String, value: String)]

    /// A request; `headers` default to none.
    public init(method: String, path: String, headers: [(name: String, value: String)] = []) {
        self.method = method
        self.path = path
        self.headers = headers
    }

    /// The value of the field `name` (any case), its lines joined with `, `; `nil` when absent.
    public func header(_ name: String) -> String? {
        let values = headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// Same method, path and headers (names compared as sent).
    public static func == (lhs: ServiceRequest, rhs: ServiceRequest) -> Bool {
        lhs.method == rhs.method && lhs.path == rhs.path
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    /// Hashes the method, the path and the header fields.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(path)
        for field in headers {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }
}
