import Foundation
import PictorCore

/// Decides whether a source URL may be fetched, from its text alone (no DNS, no connection):
/// the scheme, the allowed prefixes, credentials, and a host that is a literal non-public
/// address or a `localhost` name.
///
/// Names that resolve to private addresses are not caught here: that takes the resolved
/// address, at connect time and after every redirect, which is the transport's job.
public struct SourceGuard: Sendable, Hashable {
    /// Prefixes a source URL must start with (compared with the URL as it will be fetched, its
    /// `absoluteString`); empty allows any `http`/`https` URL. End a prefix with `/` after the
    /// host (`https://img.example/`): `https://img.example` also admits
    /// `https://img.example.evil.test/`.
    public var allowedSourcePrefixes: [String]
    /// Whether sources on loopback, private, link-local, CGNAT, multicast, reserved or
    /// unspecified addresses (and `localhost`) may be fetched. Default `false`.
    public var allowsPrivateNetwork: Bool

    /// A guard; the defaults allow any public `http`/`https` source.
    public init(allowedSourcePrefixes: [String] = [], allowsPrivateNetwork: Bool = false) {
        self.allowedSourcePrefixes = allowedSourcePrefixes
        self.allowsPrivateNetwork = allowsPrivateNetwork
    }

    /// The URL to fetch for `source`, or the refusal.
    ///
    /// - Throws: ``ServiceError`` with ``ServiceError/Kind/sourceSchemeNotAllowed`` (not
    ///   `http`/`https` — `file:` and `data:` included —, unparsable, no host, credentials),
    ///   ``ServiceError/Kind/sourceNotAllowed`` (no prefix matches), or
    ///   ``ServiceError/Kind/privateNetworkSource``. Reasons never quote the URL.
    public func check(_ source: String) throws(ServiceError) -> URL {
        guard let url = URL(string: source), let scheme = url.scheme?.lowercased() else {
            throw ServiceError(.sourceSchemeNotAllowed, reason: "the source is not an absolute URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw ServiceError(.sourceSchemeNotAllowed, reason: "source scheme \(SafeText.quote(scheme)) is not allowed (http and https only)")
        }
        guard let host = url.host, !host.isEmpty else {
            throw ServiceError(.sourceSchemeNotAllowed, reason: "the source URL has no host")
        }
        guard url.user == nil, url.password == nil else {
            throw ServiceError(.sourceSchemeNotAllowed, reason: "source URLs with credentials are not allowed")
        }
        // An origin that resolves `..` (most do) would serve a path the prefixes never saw:
        // a dot segment in any spelling is refused, prefixes or not.
        if Self.hasDotSegment(url.path(percentEncoded: true)) {
            throw ServiceError(.sourceNotAllowed, reason: "the source path has a dot segment (./ or ../)")
        }
        if !allowedSourcePrefixes.isEmpty {
            let text = url.absoluteString
            guard allowedSourcePrefixes.contains(where: { text.hasPrefix($0) }) else {
                throw ServiceError(.sourceNotAllowed, reason: "the source is not on an allowed origin")
            }
        }
        if !allowsPrivateNetwork, let refused = Self.nonPublicClass(ofHost: host) {
            throw ServiceError(.privateNetworkSource, reason: "the source host is \(Self.described(refused))")
        }
        return url
    }

    /// The class as a refusal reads it: "a loopback address", "an unspecified address".
    static func described(_ kind: AddressClass) -> String {
        switch kind {
        case .unspecified: "an unspecified address"
        case .sharedAddressSpace: "a shared (CGNAT) address"
        default: "a \(kind.rawValue) address"
        }
    }

    /// Whether `path` (percent-encoded, as sent) has a `.` or `..` segment, counting `%2e` as a
    /// dot and `%2f`, `%5c` and `\` as separators, since servers decode and split them.
    static func hasDotSegment(_ path: String) -> Bool {
        // One pass over the bytes (a check on every request: the string replacements it
        // stands for cost a tenth of a warm request's CPU).
        var dots = 0  // dots in the segment so far, or -1 once it has anything else
        var bytes = path.utf8.makeIterator()
        var pending: [UInt8] = []  // bytes read ahead after a `%` that were not an escape
        func next() -> UInt8? { pending.isEmpty ? bytes.next() : pending.removeFirst() }
        while let byte = next() {
            var unit = byte
            if byte == UInt8(ascii: "%") {
                let high = next(), low = next()
                switch (high, low.map { $0 | 0x20 }) {
                case (UInt8(ascii: "2"), UInt8(ascii: "e")): unit = UInt8(ascii: ".")
                case (UInt8(ascii: "2"), UInt8(ascii: "f")), (UInt8(ascii: "5"), UInt8(ascii: "c")): unit = UInt8(ascii: "/")
                default:
                    // Not an escape of ours: the `%` is an ordinary byte, and what followed it
                    // is read again (it may start an escape itself).
                    pending = [high, low].compactMap { $0 }
                }
            }
            switch unit {
            case UInt8(ascii: "/"), UInt8(ascii: "\\"):
                if dots == 1 || dots == 2 { return true }
                dots = 0
            case UInt8(ascii: "."):
                if dots >= 0 { dots += 1 }
            default:
                dots = -1
            }
        }
        return dots == 1 || dots == 2
    }

    /// The class of `host` when it is a literal address that is not public, or `loopback` for
    /// `localhost` and `*.localhost` (RFC 6761 reserves them for the local machine); `nil` for
    /// a public address or any other name.
    public static func nonPublicClass(ofHost host: String) -> AddressClass? {
        var name = (host.removingPercentEncoding ?? host).lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") { return .loopback }
        guard let address = IPAddress(name) else { return nil }
        let kind = AddressClass(address)
        return kind == .public ? nil : kind
    }
}
