/// What kind of network an IP address belongs to: the one classification behind every
/// server-side request forgery (SSRF) check, the image service's look at a URL's literal host
/// and ``ConnectAddressPolicy``'s look at the address a transport is about to connect to.
///
/// | class | IPv4 | IPv6 |
/// | --- | --- | --- |
/// | ``unspecified`` | `0.0.0.0/8` | `::/128` |
/// | ``loopback`` | `127.0.0.0/8` | `::1/128` |
/// | ``privateNetwork`` | `10/8`, `172.16/12`, `192.168/16` (RFC 1918) | `fc00::/7` (ULA), `fec0::/10` (old site-local), `64:ff9b:1::/48` (local-use NAT64) |
/// | ``linkLocal`` | `169.254/16` (cloud metadata at `169.254.169.254`) | `fe80::/10` |
/// | ``sharedAddressSpace`` | `100.64/10` (CGNAT, RFC 6598) | |
/// | ``multicast`` | `224/4` | `ff00::/8` |
/// | ``reserved`` | `240/4` (with `255.255.255.255`) | |
/// | ``public`` | the rest | the rest |
///
/// IPv6 addresses that carry an IPv4 address are classified by it: IPv4-mapped
/// (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`), IPv4-compatible (`::a.b.c.d`),
/// NAT64 (`64:ff9b::/96`) and 6to4 (`2002:AABB:CCDD::/16`), since a transport may reach the
/// embedded address: `::ffff:127.0.0.1` is ``loopback``, `64:ff9b::a9fe:a9fe` ``linkLocal``.
///
/// Everything else is ``public``, the IPv4 documentation and benchmarking ranges
/// (`192.0.2/24`, `198.18/15`, …) and Teredo (`2001::/32`, whose traffic goes through a public
/// relay) included: they are not routed to this machine or its network.
public enum AddressClass: String, Sendable, Hashable, CaseIterable {
    /// `0.0.0.0/8`, `::`: "this host"; connecting to it reaches the local machine.
    case unspecified
    /// The local machine.
    case loopback
    /// RFC 1918 and IPv6 unique-local (and deprecated site-local) networks.
    case privateNetwork = "private"
    /// Link-local addresses, cloud metadata services among them.
    case linkLocal = "link-local"
    /// Carrier-grade NAT space, `100.64.0.0/10`.
    case sharedAddressSpace = "cgnat"
    /// Multicast groups.
    case multicast
    /// IPv4's reserved `240.0.0.0/4`, broadcast included.
    case reserved
    /// Anything else: routable on the internet.
    case `public`

    /// The class of `address`.
    public init(_ address: IPAddress) {
        switch address {
        case .v4(let a, let b, let c, let d): self = Self.classify(a, b, c, d)
        case .v6(let bytes): self = Self.classify(v6: bytes)
        }
    }

    /// Whether a source at an address of this class may be fetched: ``public`` always, every
    /// other class only when `allowsPrivateNetwork`.
    public func isAllowed(allowsPrivateNetwork: Bool) -> Bool {
        self == .public || allowsPrivateNetwork
    }

    private static func classify(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> AddressClass {
        switch (a, b) {
        case (0, _): .unspecified
        case (127, _): .loopback
        case (10, _), (172, 16...31), (192, 168): .privateNetwork
        case (169, 254): .linkLocal
        case (100, 64...127): .sharedAddressSpace
        case (224...239, _): .multicast
        case (240...255, _): .reserved
        default: .public
        }
    }

    private static func classify(v6 bytes: [UInt8]) -> AddressClass {
        let zeros = { (range: Range<Int>) in bytes[range].allSatisfy { $0 == 0 } }
        if zeros(0..<16) { return .unspecified }
        if zeros(0..<15), bytes[15] == 1 { return .loopback }
        // IPv4-mapped ::ffff:0:0/96 and IPv4-compatible ::/96.
        if zeros(0..<10), (bytes[10] == 0xFF && bytes[11] == 0xFF) || (bytes[10] == 0 && bytes[11] == 0) {
            return classify(bytes[12], bytes[13], bytes[14], bytes[15])
        }
        // IPv4-translated ::ffff:0:0:0/96 (SIIT, RFC 2765).
        if zeros(0..<8), bytes[8] == 0xFF, bytes[9] == 0xFF, bytes[10] == 0, bytes[11] == 0 {
            return classify(bytes[12], bytes[13], bytes[14], bytes[15])
        }
        // NAT64 well-known prefix 64:ff9b::/96.
        if bytes[0] == 0x00, bytes[1] == 0x64, bytes[2] == 0xFF, bytes[3] == 0x9B, zeros(4..<12) {
            return classify(bytes[12], bytes[13], bytes[14], bytes[15])
        }
        // Local-use NAT64 64:ff9b:1::/48 (RFC 8215): a network's own translator, where the
        // IPv4 address may sit at any of several prefix lengths; never the public internet.
        if bytes[0] == 0x00, bytes[1] == 0x64, bytes[2] == 0xFF, bytes[3] == 0x9B, bytes[4] == 0, bytes[5] == 1 {
            return .privateNetwork
        }
        // 6to4 2002::/16 carries the IPv4 address in bytes 2...5.
        if bytes[0] == 0x20, bytes[1] == 0x02 { return classify(bytes[2], bytes[3], bytes[4], bytes[5]) }
        if bytes[0] & 0xFE == 0xFC { return .privateNetwork }
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return .linkLocal }
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0xC0 { return .privateNetwork }
        if bytes[0] == 0xFF { return .multicast }
        return .public
    }
}
