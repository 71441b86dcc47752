import Testing
@testable import PictorService

/// The SSRF guard's address classification: text only, nothing connects anywhere.
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

    @Test func hostNamesThatMeanThisMachine() {
        #expect(SourceGuard.nonPublicClass(ofHost: "localhost") == .loopback)
        #expect(SourceGuard.nonPublicClass(ofHost: "LOCALHOST.") == .loopback)
        #expect(SourceGuard.nonPublicClass(ofHost: "api.localhost") == .loopback)
        #expect(SourceGuard.nonPublicClass(ofHost: "localhost.example.com") == nil)
        #expect(SourceGuard.nonPublicClass(ofHost: "8.8.8.8") == nil)
        #expect(SourceGuard.nonPublicClass(ofHost: "%31%32%37.0.0.1") == .loopback)
    }
}
