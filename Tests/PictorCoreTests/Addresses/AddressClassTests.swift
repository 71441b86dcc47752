import Testing
@testable import PictorCore

/// The one address classification behind every SSRF check (the service's look at a literal host,
/// the transport's at the address it connects to): text and bytes only, nothing connects
/// anywhere.
struct AddressClassTests {
    static let table: [(String, AddressClass)] = [
        ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified), ("::", .unspecified), ("0:0:0:0:0:0:0:0", .unspecified),
        ("127.0.0.1", .loopback), ("127.255.255.254", .loopback), ("::1", .loopback), ("[::1]", .loopback),
        ("10.0.0.1", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork),
        ("192.168.1.1", .privateNetwork), ("fc00::1", .privateNetwork), ("fd12:3456::1", .privateNetwork),
        ("fec0::1", .privateNetwork),
        ("169.254.169.254", .linkLocal), ("169.254.0.1", .linkLocal), ("fe80::1", .linkLocal), ("fe80::1%eth0", .linkLocal),
        ("[fe80::1%25eth0]", .linkLocal), ("febf::1", .linkLocal),
        ("100.64.0.1", .sharedAddressSpace), ("100.127.255.255", .sharedAddressSpace),
        ("224.0.0.1", .multicast), ("239.255.255.250", .multicast), ("ff02::1", .multicast),
        ("240.0.0.1", .reserved), ("255.255.255.255", .reserved),
        ("8.8.8.8", .public), ("172.15.255.255", .public), ("172.32.0.1", .public), ("100.63.255.255", .public),
        ("100.128.0.1", .public), ("169.253.1.1", .public), ("2001:4860:4860::8888", .public), ("2606:4700::1111", .public),
        // IPv4 written the ways inet_aton reads it.
        ("127.1", .loopback), ("0x7f.0.0.1", .loopback), ("0177.0.0.1", .loopback), ("2130706433", .loopback),
        ("017700000001", .loopback), ("0xa9fea9fe", .linkLocal), ("169.254.43518", .linkLocal), ("10.1", .privateNetwork),
        ("127.0.0.1.", .loopback), ("0x", .unspecified), ("0", .unspecified),
        // IPv6 carrying IPv4.
        ("::ffff:127.0.0.1", .loopback), ("::ffff:7f00:1", .loopback), ("[::ffff:169.254.169.254]", .linkLocal),
        ("::ffff:10.0.0.1", .privateNetwork), ("::ffff:8.8.8.8", .public), ("::10.0.0.1", .privateNetwork),
        ("64:ff9b::a9fe:a9fe", .linkLocal), ("64:ff9b::8.8.8.8", .public), ("2002:c0a8:0101::1", .privateNetwork),
        ("2002:0808:0808::1", .public),
        // IPv4-translated (SIIT) and local-use NAT64.
        ("::ffff:0:127.0.0.1", .loopback), ("::ffff:0:a9fe:a9fe", .linkLocal), ("::ffff:0:8.8.8.8", .public),
        ("64:ff9b:1::a00:1", .privateNetwork), ("64:ff9b:1:ffff::8.8.8.8", .privateNetwork), ("64:ff9b:2::1", .public),
        // Each prefix's first and last address, and the neighbours outside it.
        ("0.255.255.255", .unspecified), ("1.0.0.0", .public), ("9.255.255.255", .public), ("10.255.255.255", .privateNetwork),
        ("11.0.0.0", .public), ("126.255.255.255", .public), ("127.0.0.0", .loopback), ("128.0.0.0", .public),
        ("100.64.0.0", .sharedAddressSpace), ("169.254.255.255", .linkLocal), ("169.255.0.0", .public),
        ("172.16.0.0", .privateNetwork), ("192.167.255.255", .public), ("192.168.0.0", .privateNetwork),
        ("192.168.255.255", .privateNetwork), ("192.169.0.0", .public), ("223.255.255.255", .public), ("224.0.0.0", .multicast),
        ("239.255.255.255", .multicast), ("240.0.0.0", .reserved),
        ("fbff:ffff::1", .public), ("fc00::", .privateNetwork), ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .privateNetwork),
        ("fe00::1", .public), ("fe7f:ffff::1", .public), ("fe80::", .linkLocal), ("fec0::", .privateNetwork),
        ("feff:ffff::1", .privateNetwork), ("ff00::", .multicast), ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .multicast),
        ("::2", .unspecified), ("::ffff:0.0.0.0", .unspecified), ("::ffff:255.255.255.255", .reserved),
        ("::fffe:7f00:1", .public), ("1::ffff:7f00:1", .public), ("2001::7f00:1", .public), ("2001:db8::1", .public),
    ]

    @Test(arguments: table)
    func classifies(_ text: String, _ expected: AddressClass) throws {
        let address = try #require(IPAddress(text), "\(text) should parse")
        #expect(AddressClass(address) == expected, "\(text)")
        #expect(AddressClass(address).isAllowed(allowsPrivateNetwork: false) == (expected == .public))
        #expect(AddressClass(address).isAllowed(allowsPrivateNetwork: true))
    }

    @Test(arguments: [
        "example.com", "origin.test", "", "1.2.3.4.5", "256.1.1.1", "1.2.3.256x", "1..2", "::1::2", "1:2:3:4:5:6:7:8:9",
        "12345::1", "::ffff:1.2.3", "::ffff:1.2.3.4.5", "gggg::1", "[::1", "1.2.3.-4",
    ])
    func namesAndMalformedTextAreNotAddresses(_ text: String) {
        #expect(IPAddress(text) == nil, "\(text)")
    }

    @Test func parsesBytes() {
        #expect(IPAddress("1.2.3.4") == .v4(1, 2, 3, 4))
        #expect(IPAddress("1.0x10.3") == .v4(1, 16, 0, 3))
        #expect(IPAddress("2001:db8::1") == .v6([0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]))
        #expect(IPAddress("::ffff:1.2.3.4") == .v6([UInt8](repeating: 0, count: 10) + [0xff, 0xff, 1, 2, 3, 4]))
    }

    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1"), ("::1", "::1"), ("::", "::"), ("2001:db8::1", "2001:db8::1"),
        ("2001:0db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"), ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
        ("fe80::1%eth0", "fe80::1"), ("::ffff:a9fe:a9fe", "::ffff:169.254.169.254"), ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
        ("FF02::1", "ff02::1"), ("0x7f.1", "127.0.0.1"),
    ])
    func describesAnAddressInItsUsualText(_ text: String, _ expected: String) throws {
        #expect(try #require(IPAddress(text)).description == expected)
    }
}

/// The transport's connect-time policy, on addresses alone.
struct ConnectAddressPolicyTests {
    @Test func allowAllRefusesNothing() throws {
        for (text, _) in AddressClassTests.table {
            #expect(ConnectAddressPolicy.allowAll.allows(try #require(IPAddress(text))))
        }
        #expect(!ConnectAddressPolicy.allowAll.refusesAny)
    }

    @Test func publicOnlyRefusesEveryOtherClass() throws {
        for (text, kind) in AddressClassTests.table {
            let address = try #require(IPAddress(text))
            #expect(ConnectAddressPolicy.publicOnly.refusal(of: address) == (kind == .public ? nil : kind), "\(text)")
        }
        #expect(ConnectAddressPolicy.publicOnly.refusedClasses == Set(AddressClass.allCases).subtracting([.public]))
    }

    @Test func chosenClassesOnly() throws {
        let policy = ConnectAddressPolicy(refusing: [.linkLocal])
        #expect(policy.refusal(of: try #require(IPAddress("169.254.169.254"))) == .linkLocal)
        #expect(policy.refusal(of: try #require(IPAddress("::ffff:169.254.169.254"))) == .linkLocal)
        #expect(policy.allows(try #require(IPAddress("127.0.0.1"))))
        #expect(policy.allows(try #require(IPAddress("10.0.0.1"))))
    }

    @Test func allowedAddressesAreExceptionsAlsoInTheirMappedForm() throws {
        let policy = ConnectAddressPolicy(refusing: ConnectAddressPolicy.publicOnly.refusedClasses, allowing: [.v4(10, 0, 0, 5)])
        #expect(policy.allows(.v4(10, 0, 0, 5)))
        #expect(policy.allows(try #require(IPAddress("::ffff:10.0.0.5"))))
        #expect(policy.refusal(of: .v4(10, 0, 0, 6)) == .privateNetwork)
        #expect(policy.refusal(of: try #require(IPAddress("::10.0.0.5"))) == .privateNetwork, "only the mapped form")
        #expect(policy.refusal(of: .v4(127, 0, 0, 1)) == .loopback)
    }
}
