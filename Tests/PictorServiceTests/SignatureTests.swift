import Testing
@testable import PictorService

/// Vectors computed offline with Python's `hmac`, for each path P and pair (K, S) below:
///
///     python3 -c 'import hmac,hashlib,base64,sys; k,s,p=sys.argv[1:]; print(base64.urlsafe_b64encode(hmac.new(bytes.fromhex(k), bytes.fromhex(s)+p.encode(), hashlib.sha256).digest()).rstrip(b"=").decode())' K S P
@Suite struct SignatureTests {
    static let vectors: [(path: String, key1: String, key2: String)] = [
        ("/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png",
         "90UxdwGRAI2bpLSHKkZculJau5ahfxfS0h3fMuQAf40", "ZJTVGrLFS1JGmR9qtv_xjvANaxf65wpEdvHs6GqUE0c"),
        ("/rs:fit:512:512/q:80/plain/https://origin.example/photo.jpg",
         "WOVFz1lxNsSBcscx3CVE-5c5LVM_Gef4tqLWKfM0vx4", "PL6OS67fe3ACFwvU4SgECazAFP0O1qYc0VPnn7WrWgA"),
        ("/plain/http://example.com/images/curiosity.jpg@png",
         "97WkuSlvnOHzxEg09LxNtgcBFzVR9_8slYj3vcW1uTw", "lOQsGmKHv7MW3VbY4Y5dWRQCaLPbRbgs-KzP2Oh5uBk"),
    ]

    @Test(arguments: vectors)
    func pythonVectorsVerify(path: String, key1: String, key2: String) throws {
        let first = try Fixture.signed([(Fixture.key1, Fixture.salt1)])
        let second = try Fixture.signed([(Fixture.key2, Fixture.salt2)])
        let both = try Fixture.signed([(Fixture.key2, Fixture.salt2), (Fixture.key1, Fixture.salt1)])
        #expect(first.signature.signature(for: path) == key1)
        #expect(second.signature.signature(for: path) == key2)
        #expect(try first.parse("/\(key1)\(path)").source.url.hasPrefix("http"))
        #expect(try second.parse("/\(key2)\(path)").source.url.hasPrefix("http"))
        // Rotation: either pair verifies while both are configured.
        #expect(try both.parse("/\(key1)\(path)") == first.parse("/\(key1)\(path)"))
        #expect(try both.parse("/\(key2)\(path)") == second.parse("/\(key2)\(path)"))
        // Each pair alone refuses the other's signature.
        #expect(first.refusal("/\(key2)\(path)") == ServiceError(.invalidSignature, reason: "invalid signature"))
        #expect(second.refusal("/\(key1)\(path)")?.status == 403)
    }

    @Test func signatureCoversThePathButNotTheQuery() throws {
        let parser = try Fixture.signed()
        let (path, signature, _) = Self.vectors[1]
        #expect(throws: Never.self) { try parser.parse("/\(signature)\(path)?v=2") }
        #expect(parser.refusal("/\(signature)\(path.replacingOccurrences("q:80", "q:81"))")?.kind == .invalidSignature)
        #expect(parser.refusal("/\(signature)/rs:fit:512:512/q:80/plain/https://origin.example/photo.png")?.kind == .invalidSignature)
    }

    @Test(arguments: [
        "insecure", "unsafe", "_", "",
        "90UxdwGRAI2bpLSHKkZculJau5ahfxfS0h3fMuQAf40=",  // padded
        "90UxdwGRAI2bpLSHKkZculJau5ahfxfS0h3fMuQAf4",  // truncated
        "90UxdwGRAI2bpLSHKkZculJau5ahfxfS0h3fMuQAf50",  // one bit changed
        "90UxdwGRAI2bpLSHKkZculJau5ahfxfS0h3fMuQAf41",  // same bytes, non-canonical last digit
        "90UxdwGRAI2bpLSHKkZculJau5ahfxfS0h3fMuQAf40AAAA",  // longer
        "90Uxdw+RAI2bpLSHKkZculJau5ahfxfS0h3fMuQAf40",  // standard alphabet
        String(repeating: "A", count: 5000),
    ])
    func badSignaturesAre403(signature: String) throws {
        let parser = try Fixture.signed()
        let error = parser.refusal("/\(signature)\(Self.vectors[0].path)")
        if signature.isEmpty {
            #expect(error?.kind == .notAnImageURL)
        } else {
            #expect(error == ServiceError(.invalidSignature, reason: "invalid signature"))
            #expect(error?.status == 403)
        }
    }

    @Test func signatureIsCheckedBeforeTheOptions() throws {
        let parser = try Fixture.signed()
        // An unsigned request learns nothing about which options exist.
        #expect(parser.refusal("/insecure/crop:1:1/plain/http://a.example/x.jpg")?.kind == .invalidSignature)
    }

    @Test func signatureIsCheckedOnTheDenormalisedPathAsImgproxyDoes() throws {
        let parser = try Fixture.signed()
        let (path, signature, _) = Self.vectors[1]
        // A proxy turned "https://" into "https:/" and ":" into "%3A": still verifies.
        let mangled = path.replacingOccurrences("https://", "https:/").replacingOccurrences("rs:fit", "rs%3Afit")
        #expect(try parser.parse("/\(signature)\(mangled)").options.width == 512)
    }

    @Test func unsignedURLsOnlyWhenSigningIsOff() throws {
        let off = try Fixture.unsigned()
        #expect(!off.signature.isEnabled)
        #expect(off.signature.signature(for: "/x") == nil)
        for signature in ["insecure", "unsafe", "_", "anything-at-all", "90UxdwGRAI2bpLSHKkZculJau5ahfxfS0h3fMuQAf40"] {
            #expect(throws: Never.self) { try off.parse("/\(signature)/w:1/plain/http://a.example/x.jpg") }
        }
        // A path whose first segment is an option has no signature segment.
        let error = off.refusal("/rs:fit:10:10/plain/http://a.example/x.jpg")
        #expect(error == ServiceError(.missingSignature, reason: "the signature segment is missing (the path starts with an option)"))
        #expect(error?.status == 403)
    }

    @Test func keysAreRequiredToSwitchSigningOn() {
        #expect(throws: ServiceConfigurationError.self) { try SignaturePolicy(keys: []) }
        #expect(throws: ServiceConfigurationError.self) { try SignaturePolicy(hexKeys: [], hexSalts: []) }
        #expect(throws: ServiceConfigurationError.self) { try SignaturePolicy(hexKeys: [Fixture.key1], hexSalts: []) }
        #expect(throws: ServiceConfigurationError.self) { try SigningKey(hexKey: "", hexSalt: Fixture.salt1) }
        #expect(throws: ServiceConfigurationError.self) { try SigningKey(hexKey: Fixture.key1, hexSalt: "") }
        #expect(throws: ServiceConfigurationError.self) { try SigningKey(hexKey: "abc", hexSalt: Fixture.salt1) }
        #expect(throws: ServiceConfigurationError.self) { try SigningKey(hexKey: "zz", hexSalt: Fixture.salt1) }
        do {
            _ = try SignaturePolicy(hexKeys: [Fixture.key1, "xyz!"], hexSalts: [Fixture.salt1, Fixture.salt2])
        } catch {
            #expect(error.description == "signing key 2: the key is not hex")
        }
    }

    @Test func uppercaseHexIsTheSameKey() throws {
        let upper = try Fixture.signed([(Fixture.key1.uppercased(), Fixture.salt1.uppercased())])
        #expect(upper.signature.signature(for: Self.vectors[0].path) == Self.vectors[0].key1)
    }

    @Test func constantTimeComparison() {
        #expect(SignaturePolicy.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!SignaturePolicy.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!SignaturePolicy.constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(SignaturePolicy.constantTimeEqual([], []))
    }

    @Test func base64URLRoundTrips() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 250) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text.utf8) == bytes)
        }
    }

    /// The path's delimiters are bytes, as for imgproxy and the client that signed it: a
    /// combining mark after `/` does not join it into one Character that hides the slash
    /// (found by fuzzing, target signature). The path then fails on its own terms (400), not as
    /// a bad or missing signature (403).
    @Test func aCombiningMarkAfterASlashDoesNotHideIt() throws {
        let parser = try Fixture.signed()
        let rest = "\u{301}plain/https://origin.example/a.jpg"
        let signature = try #require(parser.signature.signature(for: rest))
        #expect(parser.refusal("/\(signature)/\(rest)")?.kind == .invalidSource)
        #expect(try Fixture.unsigned().refusal("/_/\(rest)")?.kind == .invalidSource)
        // In the options and the source too: `w:10` ends at its slash, and the source keeps the mark.
        let url = try Fixture.unsigned().parse("/_/w:10/plain/https://origin.example/\u{301}a.jpg")
        #expect(url.options.width == 10)
        #expect(url.source.url == "https://origin.example/\u{301}a.jpg")
        #expect(try Fixture.unsigned().refusal("/_/w:10/\u{301}plain/https://origin.example/a.jpg")?.kind == .invalidSource)
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        replacing(target, with: replacement)
    }
}
