/// The image to process, as the path named it, decoded.
///
/// Nothing here checks the URL (scheme, host, allowed sources, addresses): that is the
/// fetching side's job. It is only the text the path carried.
public struct SourceURL: Sendable, Hashable {
    /// How the path spelled the source.
    public enum Encoding: Sendable, Hashable {
        /// `…/plain/{percent-encoded URL}[@{extension}]`.
        case plain
        /// `…/{base64url(URL), split by '/' anywhere}[.{extension}]`.
        case base64
    }

    /// The decoded URL, e.g. `https://origin.example/photo.jpg`; never empty, valid UTF-8.
    public var url: String
    /// How it was encoded in the path.
    public var encoding: Encoding

    /// A source URL.
    public init(url: String, encoding: Encoding) {
        self.url = url
        self.encoding = encoding
    }
}
