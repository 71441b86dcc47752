import Foundation
import PictorCore
import Testing
@testable import PictorService

/// The service's look at a source URL's text, before anything is resolved or fetched.
struct SourceGuardTests {
    @Test func hostNamesThatMeanThisMachine() {
        #expect(SourceGuard.nonPublicClass(ofHost: "localhost") == .loopback)
        #expect(SourceGuard.nonPublicClass(ofHost: "LOCALHOST.") == .loopback)
        #expect(SourceGuard.nonPublicClass(ofHost: "api.localhost") == .loopback)
        #expect(SourceGuard.nonPublicClass(ofHost: "localhost.example.com") == nil)
        #expect(SourceGuard.nonPublicClass(ofHost: "8.8.8.8") == nil)
        #expect(SourceGuard.nonPublicClass(ofHost: "%31%32%37.0.0.1") == .loopback)
        #expect(SourceGuard.nonPublicClass(ofHost: "[::ffff:0:7f00:1]") == .loopback)
    }

    /// An origin that resolves `..` would serve a path outside the allowed prefix: every
    /// spelling of a dot segment is refused, whatever the prefixes.
    @Test(arguments: [
        "http://127.0.0.1:18080/allowed/../other/a.png",
        "http://127.0.0.1:18080/allowed/%2e%2e/other/a.png",
        "http://127.0.0.1:18080/allowed/%2E%2e/other/a.png",
        "http://127.0.0.1:18080/allowed/..%2fother/a.png",
        "http://127.0.0.1:18080/allowed/..%2Fother/a.png",
        "http://127.0.0.1:18080/allowed/.%2e/other/a.png",
        "http://127.0.0.1:18080/allowed/..%5cother/a.png",
        "http://127.0.0.1:18080/allowed/./../other/a.png",
        "http://127.0.0.1:18080/allowed/..",
        "http://127.0.0.1:18080/allowed/./a.png",
    ])
    func dotSegmentsNeverLeaveTheAllowedPrefix(_ source: String) {
        let guardrail = SourceGuard(allowedSourcePrefixes: ["http://127.0.0.1:18080/allowed/"], allowsPrivateNetwork: true)
        #expect(throws: ServiceError.self) { try guardrail.check(source) }
        do {
            _ = try guardrail.check(source)
        } catch {
            #expect(error.kind == .sourceNotAllowed)
        }
        #expect(throws: ServiceError.self, "without prefixes too") { try SourceGuard(allowsPrivateNetwork: true).check(source) }
    }

    @Test(arguments: [
        "http://127.0.0.1:18080/allowed/a..b.png",
        "http://127.0.0.1:18080/allowed/...png",
        "http://127.0.0.1:18080/allowed/.hidden/a.png",
        "http://127.0.0.1:18080/allowed/a.png?next=../b",
    ])
    func dotsThatAreNotSegmentsAreFine(_ source: String) throws {
        let guardrail = SourceGuard(allowedSourcePrefixes: ["http://127.0.0.1:18080/allowed/"], allowsPrivateNetwork: true)
        #expect(try guardrail.check(source).absoluteString == source)
    }

    /// The one-pass scan says what decoding the escapes and splitting says, for every path
    /// made of the pieces that matter (dots, separators in each spelling, a `%` that starts
    /// no escape, letters), up to four pieces long.
    @Test func theScanAgreesWithDecodingAndSplitting() {
        let pieces = [".", "/", "%2e", "%2E", "%2f", "%5C", "\\", "%", "%2", "a", "%%2e"]
        func reference(_ path: String) -> Bool {
            var decoded = path.replacingOccurrences(of: "%2e", with: ".", options: .caseInsensitive)
            for separator in ["%2f", "%5c", "\\"] {
                decoded = decoded.replacingOccurrences(of: separator, with: "/", options: .caseInsensitive)
            }
            return decoded.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == "." || $0 == ".." }
        }
        var paths = [""]
        var disagreements: [String] = []
        for _ in 0..<4 {
            paths = paths.flatMap { path in pieces.map { path + $0 } }
            for path in paths where SourceGuard.hasDotSegment(path) != reference(path) { disagreements.append(path) }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }
}
