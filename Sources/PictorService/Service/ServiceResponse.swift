import Foundation

/// What ``ImageService`` answers: a status, header fields and a body, for the HTTP server to
/// write as they are.
///
/// Header values are printable ASCII with no CR or LF: nothing from the request's URL is
/// echoed into them. A refusal's body is one line of text (``ServiceError/reason``) ending in
/// `\n`; a `HEAD` response and a 304 have an empty body, the other headers unchanged
/// (`Content-Length` is the length a `GET` would get).
public struct ServiceResponse: Sendable, Hashable {
    /// The HTTP status code, e.g. 200, 304, 403.
    public var status: Int
    /// The header fields in the order to send them, e.g. `("Content-Type", "image/webp")`.
    public var headers: [(name: String, value: String)]
    /// The body: image bytes, a one-line reason, or empty (`HEAD`, 304).
    public var body: Data

    /// A response; `headers` default to none, `body` to empty.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the field `name` (any case), the first one sent; `nil` when absent.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Same status, header fields and body.
    public static func == (lhs: ServiceResponse, rhs: ServiceResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    /// Hashes the status, the header fields and the body.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        for field in headers {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
        hasher.combine(body)
    }
}
