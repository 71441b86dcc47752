/// Which IP addresses a transport may open connections to, judged on the address it is about to
/// connect to, after name resolution: the guard against server-side request forgery (SSRF),
/// where a URL from outside makes a server fetch from its own machine or network (a database on
/// loopback, an admin page on `10.0.0.5`, the cloud metadata service at `169.254.169.254`).
///
/// Checking the URL's host is not enough: a public name may resolve to a private address, or
/// resolve once to a public one for the check and then to a private one for the connection (DNS
/// rebinding), and a redirect leads to another host. A transport that enforces a policy checks
/// each address it connects to, on every hop, at the moment it connects. `CurlTransport` does
/// (its `Configuration.connectAddressPolicy`); `URLSessionTransport` cannot.
///
/// ```swift
/// var transport = CurlTransport.Configuration()
/// transport.connectAddressPolicy = .publicOnly
/// ```
///
/// An address is refused when its ``AddressClass`` is one of ``refusedClasses`` and it is not one
/// of ``allowedAddresses``. ``allowAll`` (the default of every transport) refuses nothing;
/// ``publicOnly`` refuses every class but ``AddressClass/public``: loopback, RFC 1918 and IPv6
/// unique-local, link-local (the metadata service), CGNAT `100.64/10`, multicast, reserved
/// `240/4` and "this network" `0/8` and `::`, and every IPv6 form that carries such an IPv4
/// address (`::ffff:127.0.0.1`, NAT64, 6to4; see ``AddressClass``).
public struct ConnectAddressPolicy: Sendable, Hashable {
    /// The classes of addresses refused.
    public var refusedClasses: Set<AddressClass>
    /// Addresses allowed whatever their class, e.g. one internal origin at `10.0.0.5` under
    /// ``publicOnly``. An IPv4 address here also allows its IPv4-mapped IPv6 form
    /// (`::ffff:10.0.0.5`). Empty by default.
    public var allowedAddresses: Set<IPAddress>

    /// A policy that refuses `refusedClasses`, except the `allowedAddresses`.
    public init(refusing refusedClasses: Set<AddressClass>, allowing allowedAddresses: Set<IPAddress> = []) {
        self.refusedClasses = refusedClasses
        self.allowedAddresses = allowedAddresses
    }

    /// Refuses nothing: every transport's default, so a library user's loads are unaffected.
    public static let allowAll = ConnectAddressPolicy(refusing: [])

    /// Refuses every address that is not ``AddressClass/public``: for a server that fetches
    /// URLs it is given by others.
    public static let publicOnly = ConnectAddressPolicy(refusing: Set(AddressClass.allCases).subtracting([.public]))

    /// Whether the policy can refuse anything at all.
    public var refusesAny: Bool { !refusedClasses.isEmpty }

    /// `nil` when a connection to `address` is allowed, else the class it was refused for.
    public func refusal(of address: IPAddress) -> AddressClass? {
        guard refusesAny else { return nil }
        let kind = AddressClass(address)
        guard refusedClasses.contains(kind) else { return nil }
        if allowedAddresses.contains(address) { return nil }
        if case .v6(let bytes) = address, bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF,
           allowedAddresses.contains(.v4(bytes[12], bytes[13], bytes[14], bytes[15])) {
            return nil
        }
        return kind
    }

    /// Whether a connection to `address` is allowed.
    public func allows(_ address: IPAddress) -> Bool { refusal(of: address) == nil }
}
