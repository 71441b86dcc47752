import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import PictorTestSupport
import Testing

/// The rules of a private and of a shared cache (RFC 9111 §3, §3.5, §4.1, §4.2, §4.2.4, §5.2),
/// as pure functions: every directive combination that changes an answer.
@Suite struct CacheRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let url = URL(string: "https://images.example.test/avatar.png")!
    static let hashing = TestKeyHashing()

    static let privateRules = CacheRules(scope: .private, policy: .http)
    static let sharedRules = CacheRules(scope: .shared, policy: .http)

    static func request(_ headers: [String: String] = [:], url: URL = url) -> CacheRequestFacts {
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return CacheRequestFacts(request, hashing: hashing)
    }

    static let anonymous = request()
    static let authorized = request(["Authorization": "Bearer token-A"])

    /// The metadata a download with `headers` is stored with, answering `request`.
    static func stored(_ headers: [String: String], for request: CacheRequestFacts = anonymous) -> DataCacheMetadata {
        let head = HTTPResponseHead(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers)!)
        var metadata = HTTPFreshness.metadata(
            for: head, data: Data(), exchange: .init(requested: now, received: now), heuristicCap: 86_400, defaultLifetime: 604_800)
        metadata.varyKey = metadata.vary.flatMap { request.varyKey(for: $0) }
        return metadata
    }

    // MARK: - What may be stored

    /// `(Cache-Control, authorized request, private refusal, shared refusal)`.
    @Test(arguments: [
        ("max-age=3600", false, nil, nil),
        ("max-age=3600", true, nil, CacheRules.Refusal.authorized),
        ("private, max-age=3600", false, nil, .private),
        ("private=\"Set-Cookie\", max-age=3600", false, nil, .private),
        ("private, max-age=3600", true, nil, .private),
        ("public, private, max-age=3600", false, nil, .private),
        ("no-store", false, .noStore, .noStore),
        ("no-store", true, .noStore, .noStore),
        ("max-age=60, x=\"unclosed, private", false, nil, .private),
        ("max-age=60, x=a\"b, private", false, nil, .private),
        ("x=\"a\\\", private, max-age=600", false, nil, .private),
        ("max-age=60, =5", false, nil, .private),
        ("max-age=60, x=1 y", false, nil, .private),
        ("public, max-age=3600", true, nil, nil),
        ("max-age=3600, s-maxage=60", true, nil, nil),
        ("max-age=3600, s-maxage=bad", true, nil, nil),
        ("max-age=3600, must-revalidate", true, nil, nil),
        ("max-age=3600, proxy-revalidate", true, nil, .authorized),
        ("no-cache", true, nil, .authorized),
        ("public, no-store", true, .noStore, .noStore),
    ] as [(String, Bool, CacheRules.Refusal?, CacheRules.Refusal?)])
    func storage(cacheControl: String, authorized: Bool, privateRefusal: CacheRules.Refusal?, sharedRefusal: CacheRules.Refusal?) {
        let request = authorized ? Self.authorized : Self.anonymous
        let metadata = Self.stored(["Cache-Control": cacheControl], for: request)
        #expect(Self.privateRules.refusal(toStore: metadata, for: request) == privateRefusal, "private: \(cacheControl)")
        #expect(Self.sharedRules.refusal(toStore: metadata, for: request) == sharedRefusal, "shared: \(cacheControl)")
    }

    @Test func aUserNameInTheURLIsCredentials() {
        let request = Self.request(url: URL(string: "https://ann:secret@images.example.test/a.png")!)
        #expect(request.isAuthorized)
        #expect(Self.sharedRules.refusal(toStore: Self.stored(["Cache-Control": "max-age=60"]), for: request) == .authorized)
        #expect(!Self.request(["Cookie": "session=1"]).isAuthorized, "a cookie is not Authorization (RFC 9111 §3.5)")
    }

    @Test func ignoringHTTPHeadersNeverSharesNoStoreOrPrivate() {
        let ignoring = CacheRules(scope: .shared, policy: .ignoreHTTPHeaders)
        #expect(ignoring.refusal(toStore: Self.stored(["Cache-Control": "no-store"]), for: Self.anonymous) == .noStore)
        #expect(ignoring.refusal(toStore: Self.stored(["Cache-Control": "private"]), for: Self.anonymous) == .private)
        #expect(ignoring.refusal(toStore: Self.stored(["Cache-Control": "max-age=9"], for: Self.authorized), for: Self.authorized) == .authorized)
        let privateIgnoring = CacheRules(scope: .private, policy: .ignoreHTTPHeaders)
        #expect(privateIgnoring.refusal(toStore: Self.stored(["Cache-Control": "no-store, private"]), for: Self.authorized) == nil)
    }

    // MARK: - Which entry answers a request

    @Test func aSharedEntryAnswersARequestWithCredentialsOnlyWhenItAllowsIt() {
        for (cacheControl, allowed) in [("max-age=60", false), ("public, max-age=60", true), ("s-maxage=60", true), ("must-revalidate, max-age=60", true)] {
            let entry = DataCacheEntry(data: Data([1]), metadata: Self.stored(["Cache-Control": cacheControl]))
            #expect(Self.sharedRules.matches(entry.metadata, Self.authorized) == allowed, "\(cacheControl)")
            #expect(Self.sharedRules.matches(entry.metadata, Self.anonymous), "\(cacheControl)")
            #expect(Self.privateRules.matches(entry.metadata, Self.authorized), "a private cache is one user's: \(cacheControl)")
        }
    }

    @Test(arguments: ["Authorization", "Cookie", "Accept", "accept, cookie"])
    func varyMatchesOnlyTheSameValues(vary: String) {
        let a = Self.request(["Authorization": "Bearer A", "Cookie": "s=A", "Accept": "image/webp"])
        let b = Self.request(["Authorization": "Bearer B", "Cookie": "s=B", "Accept": "image/avif"])
        let entry = DataCacheEntry(data: Data([1]), metadata: Self.stored(["Cache-Control": "public, max-age=60", "Vary": vary], for: a))
        for rules in [Self.privateRules, Self.sharedRules] {
            #expect(rules.matches(entry.metadata, a), "\(vary)")
            #expect(!rules.matches(entry.metadata, b), "\(vary): other values are a miss")
            #expect(!rules.matches(entry.metadata, Self.anonymous), "\(vary): absent values are a miss")
        }
        #expect(Self.privateRules.isFresh(entry.metadata, now: Self.now), "a match is fresh as any entry")
    }

    @Test func varyValuesAreStoredOnlyAsADigest() throws {
        let a = Self.request(["Authorization": "Bearer secret-token", "Cookie": "session=secret-cookie"])
        let metadata = Self.stored(["Cache-Control": "public, max-age=60", "Vary": "Authorization, Cookie"], for: a)
        let key = try #require(metadata.varyKey)
        #expect(!key.contains("secret"))
        let spaced = Self.request(["Authorization": "  Bearer secret-token ", "Cookie": "session=secret-cookie"])
        #expect(spaced.varyKey(for: "cookie ,authorization") == key, "names in any case and order, values trimmed")
        #expect(Self.request(["Cookie": ""]).varyKey(for: "Cookie") != Self.anonymous.varyKey(for: "Cookie"), "empty is not absent")
    }

    @Test(arguments: ["Accept Cookie", "Accept;Cookie", "Cookie, Accept Cookie", "\"Cookie\""])
    func aVaryThatIsNotAListOfFieldNamesMatchesNothing(vary: String) {
        let entry = DataCacheEntry(data: Data([1]), metadata: Self.stored(["Cache-Control": "max-age=60", "Vary": vary]))
        #expect(entry.metadata.varyKey == nil, "\(vary)")
        #expect(!Self.sharedRules.matches(entry.metadata, Self.anonymous))
        #expect(Self.sharedRules.refusal(toStore: entry.metadata, for: Self.anonymous) == .unmatchableVary)
    }

    @Test func varyStarOrNoHashingNeverMatchesAndIsNotStored() {
        let star = DataCacheEntry(data: Data([1]), metadata: Self.stored(["Cache-Control": "max-age=60", "Vary": "*"]))
        #expect(star.metadata.varyKey == nil)
        #expect(!Self.privateRules.matches(star.metadata, Self.anonymous))
        #expect(Self.privateRules.refusal(toStore: star.metadata, for: Self.anonymous) == .unmatchableVary)
        let unhashed = CacheRequestFacts(URLRequest(url: Self.url), hashing: nil)
        #expect(unhashed.varyKey(for: "Accept") == nil)
        // Old entries recorded `Vary` but no key: they answer nobody.
        let old = DataCacheEntry(data: Data([1]), metadata: DataCacheMetadata(expiresAt: Self.now.addingTimeInterval(60), vary: "Accept"))
        #expect(!Self.privateRules.matches(old.metadata, Self.anonymous))
        #expect(CacheRules(scope: .private, policy: .ignoreHTTPHeaders).matches(old.metadata, Self.anonymous), "the policy that ignores headers ignores Vary")
        #expect(!CacheRules(scope: .shared, policy: .ignoreHTTPHeaders).matches(old.metadata, Self.anonymous))
    }

    // MARK: - Freshness

    @Test func sharedMaxAgeIsTheSharedLifetime() {
        let m = Self.stored(["Cache-Control": "max-age=3600, s-maxage=0"])
        #expect(Self.privateRules.isFresh(m, now: Self.now.addingTimeInterval(1)))
        #expect(!Self.sharedRules.isFresh(m, now: Self.now))
        let longer = Self.stored(["Cache-Control": "max-age=10, s-maxage=600"])
        #expect(!Self.privateRules.isFresh(longer, now: Self.now.addingTimeInterval(60)))
        #expect(Self.sharedRules.isFresh(longer, now: Self.now.addingTimeInterval(60)))
        let plain = Self.stored(["Cache-Control": "max-age=60"])
        #expect(plain.sharedExpiresAt == plain.expiresAt)
    }

    @Test(arguments: ["max-age='3600'", "max-age =100", "max-age= 100", "max-age=a100", "max-age=100a", "max-age=60, max-age=70"])
    func malformedMaxAgeIsStaleInEveryTierNotTheDefaultLifetime(cacheControl: String) {
        let m = Self.stored(["Cache-Control": cacheControl])
        #expect(m.expiresAt == Self.now, "\(cacheControl)")
        #expect(m.sharedExpiresAt == Self.now, "\(cacheControl)")
        #expect(!Self.privateRules.isFresh(m, now: Self.now))
        #expect(!Self.sharedRules.isFresh(m, now: Self.now))
        // The 7-day default is for a response that says nothing at all.
        #expect(Self.stored([:]).expiresAt == Self.now.addingTimeInterval(604_800))
    }

    @Test func malformedSharedMaxAgeIsStaleInASharedCacheOnly() {
        let m = Self.stored(["Cache-Control": "max-age=3600, s-maxage=1h"])
        #expect(Self.privateRules.isFresh(m, now: Self.now))
        #expect(!Self.sharedRules.isFresh(m, now: Self.now))
    }

    @Test func aQuotedMaxAgeIsRead() {
        let m = Self.stored(["Cache-Control": "max-age=\"600\""])
        #expect(m.expiresAt == Self.now.addingTimeInterval(600))
    }

    // MARK: - Serving stale when the origin fails

    /// `(Cache-Control, private may serve stale, shared may serve stale)`.
    @Test(arguments: [
        ("max-age=60", true, true),
        ("max-age=60, must-revalidate", false, false),
        ("max-age=60, proxy-revalidate", true, false),
        ("max-age=60, s-maxage=60", true, false),
        ("no-cache", false, false),
    ])
    func stale(cacheControl: String, privately: Bool, shared: Bool) {
        let m = Self.stored(["Cache-Control": cacheControl])
        #expect(Self.privateRules.servesStale(m, now: Self.now.addingTimeInterval(3600)) == privately, "\(cacheControl)")
        #expect(Self.sharedRules.servesStale(m, now: Self.now.addingTimeInterval(3600)) == shared, "\(cacheControl)")
    }
}

/// `stale-while-revalidate` and `stale-if-error` (RFC 5861) on both kinds of cache.
@Suite struct CacheRulesStaleExtensionsTests {
    static let now = CacheRulesTests.now

    /// The metadata a download with `cacheControl` stored at ``now`` has.
    static func stored(_ cacheControl: String) -> DataCacheMetadata {
        CacheRulesTests.stored(["Cache-Control": cacheControl, "ETag": "\"v\""])
    }

    /// `(Cache-Control, seconds after storing, private may answer while revalidating, shared may)`.
    @Test(arguments: [
        ("max-age=60, stale-while-revalidate=30", 70.0, true, true),
        ("max-age=60, stale-while-revalidate=30", 90.0, false, false),
        ("max-age=60, stale-while-revalidate=30, must-revalidate", 70.0, false, false),
        ("max-age=60, stale-while-revalidate=30, proxy-revalidate", 70.0, true, false),
        ("max-age=60, s-maxage=10, stale-while-revalidate=30", 70.0, true, false),
        ("max-age=60, s-maxage=10, stale-while-revalidate=30", 30.0, true, true),
        ("max-age=60, stale-while-revalidate=abc", 61.0, false, false),
        ("no-cache, stale-while-revalidate=30", 1.0, false, false),
        ("max-age=60", 61.0, false, false),
    ])
    func staleWhileRevalidate(cacheControl: String, after seconds: Double, privately: Bool, shared: Bool) {
        let m = Self.stored(cacheControl)
        let at = Self.now.addingTimeInterval(seconds)
        #expect(CacheRulesTests.privateRules.servesWhileRevalidating(m, now: at) == privately, "\(cacheControl)")
        #expect(CacheRulesTests.sharedRules.servesWhileRevalidating(m, now: at) == shared, "\(cacheControl)")
    }

    @Test func thePolicyAnswersWithAnyEntryAndIgnoreHeadersNeverRevalidates() {
        let m = Self.stored("no-cache, must-revalidate")
        #expect(CacheRules(scope: .private, policy: .returnCachedThenRevalidate).servesWhileRevalidating(m, now: Self.now))
        #expect(CacheRules(scope: .shared, policy: .returnCachedThenRevalidate).servesWhileRevalidating(m, now: Self.now))
        #expect(!CacheRules(scope: .private, policy: .ignoreHTTPHeaders).servesWhileRevalidating(m, now: Self.now))
        // The policy judges freshness as `http` does.
        #expect(!CacheRules(scope: .private, policy: .returnCachedThenRevalidate).isFresh(m, now: Self.now))
    }

    /// `(Cache-Control, seconds after storing, private may stand in after an error, shared may)`.
    @Test(arguments: [
        ("max-age=60, stale-if-error=30", 80.0, true, true),
        ("max-age=60, stale-if-error=30", 91.0, false, false),
        ("max-age=60, s-maxage=60, stale-if-error=30", 80.0, true, true),
        ("max-age=60, proxy-revalidate, stale-if-error=30", 80.0, true, false),
        ("max-age=60, must-revalidate, stale-if-error=30", 80.0, false, false),
        ("max-age=60", 86_400.0 * 365, true, true),
    ])
    func staleIfError(cacheControl: String, after seconds: Double, privately: Bool, shared: Bool) {
        let m = Self.stored(cacheControl)
        let at = Self.now.addingTimeInterval(seconds)
        #expect(CacheRulesTests.privateRules.servesStale(m, now: at) == privately, "\(cacheControl)")
        #expect(CacheRulesTests.sharedRules.servesStale(m, now: at) == shared, "\(cacheControl)")
    }
}
