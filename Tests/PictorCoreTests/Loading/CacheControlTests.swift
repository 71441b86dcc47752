import Foundation
@testable import PictorCore
import Testing

/// `Cache-Control` as RFC 9111 §5.2 and RFC 9110 §5.6 write it: what is read, and which
/// freshness directives are present but unreadable (stale, not absent).
@Suite struct CacheControlTests {
    @Test(arguments: [
        ("max-age=3600", 3600.0),
        ("MAX-AGE=3600", 3600),
        ("public, max-age=3600, must-revalidate", 3600),
        ("max-age=\"3600\"", 3600),
        ("  max-age=0  ", 0),
        ("max-age=007", 7),
        ("max-age=99999999999999999999", CacheControl.deltaSecondsLimit),
        ("max-age=60, max-age=60", 60),
        ("private=\"Set-Cookie, X-A\", max-age=5", 5),
        ("no-cache=\"a,b\",max-age=9", 9),
    ])
    func validMaxAgeIsRead(header: String, seconds: Double) {
        let control = CacheControl(header)
        #expect(control.maxAge == seconds, "\(header)")
        #expect(!control.hasInvalidMaxAge, "\(header)")
    }

    @Test(arguments: [
        "max-age='3600'", "max-age =100", "max-age= 100", "max-age=a100", "max-age=100a", "max-age",
        "max-age=", "max-age=-1", "max-age=1.5", "max-age=60, max-age=120", "max-age=\"60", "max-age=\"6 0\"",
        "max-age=+5", "max-age=0x10", "public, max-age=100 200",
    ])
    func malformedMaxAgeIsInvalidNotAbsent(header: String) {
        let control = CacheControl(header)
        #expect(control.maxAge == nil, "\(header)")
        #expect(control.hasInvalidMaxAge, "\(header)")
    }

    @Test func sharedMaxAgeIsReadApart() {
        let control = CacheControl("max-age=3600, s-maxage=0")
        #expect(control.maxAge == 3600)
        #expect(control.sharedMaxAge == 0)
        #expect(control.hasSharedMaxAge)
        let bad = CacheControl("max-age=3600, s-maxage=ten")
        #expect(bad.maxAge == 3600 && !bad.hasInvalidMaxAge)
        #expect(bad.sharedMaxAge == nil && bad.hasInvalidSharedMaxAge && bad.hasSharedMaxAge)
        #expect(!CacheControl("max-age=5").hasSharedMaxAge)
    }

    @Test func flagsAreReadWithAndWithoutArguments() {
        let control = CacheControl("Private=\"Authorization\", No-Cache, no-store, PUBLIC, must-revalidate, proxy-revalidate")
        #expect(control.isPrivate && control.noCache && control.noStore && control.isPublic)
        #expect(control.mustRevalidate && control.proxyRevalidate)
        let plain = CacheControl("max-age=60")
        #expect(!plain.isPrivate && !plain.noCache && !plain.noStore && !plain.isPublic && !plain.mustRevalidate && !plain.proxyRevalidate)
        #expect(!CacheControl("must-revalidate").proxyRevalidate, "proxy-revalidate is its own directive")
        #expect(!CacheControl(nil).isPrivate)
    }

    @Test func aQuotedCommaDoesNotSplitADirective() {
        let directives = CacheControl.directives("private=\"a, max-age=9\", max-age=5")
        #expect(directives.map(\.name) == ["private", "max-age"])
        #expect(directives.first?.argument == "a, max-age=9")
        #expect(CacheControl("private=\"a, max-age=9\", max-age=5").maxAge == 5)
        #expect(CacheControl.directives("x=\"a\\\"b\"").first?.argument == "a\"b")
    }

    @Test func emptyElementsAndUnknownDirectivesAreSkipped() {
        let control = CacheControl(", ,immutable, stale-while-revalidate=30,, max-age=10,")
        #expect(control.maxAge == 10)
        #expect(!control.hasInvalidMaxAge)
    }
}

/// RFC 5861's two extension directives.
@Suite struct CacheControlStaleExtensionsTests {
    @Test func theirValuesAreRead() {
        let control = CacheControl("max-age=60, stale-while-revalidate=30, Stale-If-Error=\"86400\"")
        #expect(control.staleWhileRevalidate == 30)
        #expect(control.staleIfError == 86_400)
        #expect(control.maxAge == 60 && !control.hasMalformedDirective)
    }

    /// A value that is not delta-seconds, or two that disagree, grant nothing.
    @Test(arguments: [
        "stale-while-revalidate", "stale-while-revalidate=", "stale-while-revalidate=-1", "stale-while-revalidate=1.5",
        "stale-while-revalidate=10, stale-while-revalidate=20", "stale-while-revalidate =10",
    ])
    func anUnreadableValueGrantsNothing(header: String) {
        #expect(CacheControl(header).staleWhileRevalidate == nil, "\(header)")
        #expect(CacheControl(header.replacingOccurrences(of: "stale-while-revalidate", with: "stale-if-error")).staleIfError == nil)
    }

    @Test func absentMeansNone() {
        let control = CacheControl("max-age=60")
        #expect(control.staleWhileRevalidate == nil && control.staleIfError == nil)
    }
}
