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
}
