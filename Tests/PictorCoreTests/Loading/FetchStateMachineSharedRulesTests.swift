import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import PictorTestSupport
import Testing

/// The shared fleet tier is a shared cache (RFC 9111): the fetch state machine keeps `private`
/// and authorized responses out of it, serves a request with credentials only what allows it,
/// judges its freshness by `s-maxage`, and matches `Vary` in every tier; all without I/O.
@Suite struct FetchStateMachineSharedRulesTests {
    static let now = CacheRulesTests.now
    static let url = CacheRulesTests.url
    /// A PNG's signature and first chunk header, then its IEND chunk: bytes that are not cut.
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        + [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])

    func machine(_ request: CacheRequestFacts = CacheRulesTests.anonymous, localScope: CacheScope = .private) -> FetchStateMachine {
        FetchStateMachine(.init(readsCaches: true, isCacheOnly: false, policy: .http, servesStaleOnError: true,
                                hasSharedTier: true, heuristicCap: 86_400, defaultLifetime: 604_800,
                                request: request, localScope: localScope))
    }

    func response(_ headers: [String: String]) -> HTTPURLResponse {
        HTTPURLResponse(url: Self.url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    var exchange: HTTPFreshness.Exchange { .init(requested: Self.now, received: Self.now) }

    /// Runs a fetch that misses both tiers and downloads a response with `headers`.
    func download(_ headers: [String: String], _ m: inout FetchStateMachine) -> (FetchResult, FetchStateMachine.CacheWrite, FetchStateMachine.SharedWrite)? {
        _ = m.start()
        _ = m.diskRead(nil, now: Self.now)
        if case .claimShared = m.sharedRead(nil, now: Self.now) { _ = m.claimed(.leased(SharedCacheLease(key: "k", token: "t")), now: Self.now) }
        guard case .finish(let result, let write, let share) = m.loaded(Self.png, response: response(headers), exchange: exchange) else {
            return nil
        }
        return (result, write, share)
    }

    func entry(_ headers: [String: String], for request: CacheRequestFacts = CacheRulesTests.anonymous) -> DataCacheEntry {
        DataCacheEntry(data: Self.png, metadata: CacheRulesTests.stored(headers, for: request))
    }

    @Test func aPrivateResponseIsKeptLocallyButNeverShared() throws {
        var m = machine()
        let (_, write, share) = try #require(download(["Cache-Control": "private, max-age=3600"], &m))
        #expect(write == .store, "one user's disk may keep it")
        #expect(share == .refused(.private))
    }

    @Test func anAuthorizedResponseIsSharedOnlyWhenItSaysSo() throws {
        for (cacheControl, shared) in [("max-age=3600", false), ("public, max-age=3600", true), ("max-age=3600, s-maxage=600", true),
                                       ("max-age=3600, must-revalidate", true)] {
            var m = machine(CacheRulesTests.authorized)
            let (_, write, share) = try #require(download(["Cache-Control": cacheControl], &m))
            #expect(write == .store, "\(cacheControl)")
            #expect(share == (shared ? .store : .refused(.authorized)), "\(cacheControl)")
        }
    }

    /// The entry under the URL asked for stands for the whole chain: a `private` redirect, or
    /// one that does not allow sharing an answer to a request with credentials, keeps it out
    /// of the shared tier even when the target says `public`.
    @Test func aRedirectsOwnTermsKeepTheChainOutOfTheSharedTier() throws {
        let target = ["Cache-Control": "public, max-age=86400"]
        for (hop, authorized, expected) in [
            ("private, max-age=600", false, FetchStateMachine.SharedWrite.refused(.private)),
            ("private, max-age=600", true, .refused(.private)),
            ("max-age=600", true, .refused(.authorized)),
            ("public, max-age=600", true, .store),
            ("max-age=600", false, .store),
            ("max-age=600, x=\"unclosed, private", false, .refused(.private)),
        ] {
            for status in [301, 302, 307, 308] {
                var m = machine(authorized ? CacheRulesTests.authorized : CacheRulesTests.anonymous)
                _ = m.start()
                _ = m.diskRead(nil, now: Self.now)
                if case .claimShared = m.sharedRead(nil, now: Self.now) { _ = m.claimed(.unavailable, now: Self.now) }
                let redirect = HTTPURLResponse(url: Self.url, statusCode: status, httpVersion: "HTTP/1.1",
                                               headerFields: ["Cache-Control": hop, "Location": "https://cdn.example.test/a.png"])!
                guard case .finish(_, let write, let share) = m.loaded(Self.png, response: response(target), redirects: [redirect], exchange: exchange) else {
                    Issue.record("expected finish"); continue
                }
                #expect(share == expected, "\(status) \(hop), authorized \(authorized)")
                #expect(write == .store, "one user's disk keeps it")
            }
        }
    }

    /// Under every policy a `no-store` redirect keeps the chain out of the fleet; a redirect to
    /// a URL with credentials makes the rest of the chain a request with credentials; and a
    /// `private` hop is what is counted, whatever the target lacks.
    @Test func redirectsUnderEveryPolicyAndCredentialsAddedOnTheWay() throws {
        func share(_ policy: ImagePipeline.HTTPCachePolicy, hop: [String: String], target: [String: String],
                   request: CacheRequestFacts = CacheRulesTests.anonymous) -> FetchStateMachine.SharedWrite? {
            var m = FetchStateMachine(.init(readsCaches: true, isCacheOnly: false, policy: policy, servesStaleOnError: true,
                                            hasSharedTier: true, heuristicCap: 86_400, request: request))
            _ = m.start()
            _ = m.diskRead(nil, now: Self.now)
            if case .claimShared = m.sharedRead(nil, now: Self.now) { _ = m.claimed(.unavailable, now: Self.now) }
            let redirect = HTTPURLResponse(url: Self.url, statusCode: 301, httpVersion: "HTTP/1.1", headerFields: hop)!
            guard case .finish(_, _, let share) = m.loaded(Self.png, response: response(target), redirects: [redirect], exchange: exchange) else {
                return nil
            }
            return share
        }
        let publicTarget = ["Cache-Control": "public, max-age=60"]
        for policy in ImagePipeline.HTTPCachePolicy.allCases {
            #expect(share(policy, hop: ["Cache-Control": "no-store", "Location": "/b"], target: publicTarget) == .refused(.noStore), "\(policy)")
        }
        let withUser = ["Location": "https://eve:pw@cdn.example.test/a.png"]
        #expect(share(.http, hop: withUser, target: ["Cache-Control": "max-age=60"]) == .refused(.authorized))
        #expect(share(.http, hop: withUser, target: publicTarget) == .store)
        #expect(share(.http, hop: ["Cache-Control": "private", "Location": "/b"], target: ["Cache-Control": "max-age=60"],
                      request: CacheRulesTests.authorized) == .refused(.private), "private is named before authorized")
    }

    @Test func aRequestWithCredentialsTakesNoLeaseAndIsNotServedAnotherUsersEntry() {
        var m = machine(CacheRulesTests.authorized)
        _ = m.start()
        _ = m.diskRead(nil, now: Self.now)
        // Stored from an anonymous request, fresh, without public: not for a request with credentials.
        guard case .load(let validators) = m.sharedRead(entry(["Cache-Control": "max-age=3600"]), now: Self.now) else {
            Issue.record("expected a download without a lease"); return
        }
        #expect(validators == nil)
        var allowed = machine(CacheRulesTests.authorized)
        _ = allowed.start()
        _ = allowed.diskRead(nil, now: Self.now)
        guard case .finish(let result, _, _) = allowed.sharedRead(entry(["Cache-Control": "public, max-age=3600"]), now: Self.now) else {
            Issue.record("expected a shared hit"); return
        }
        #expect(result.source == .shared)
    }

    @Test func sharedMaxAgeZeroIsStaleInTheSharedTierAndRevalidated() {
        var m = machine()
        _ = m.start()
        _ = m.diskRead(nil, now: Self.now)
        let stale = entry(["Cache-Control": "max-age=3600, s-maxage=0", "ETag": "\"v1\""])
        guard case .claimShared(let previous) = m.sharedRead(stale, now: Self.now.addingTimeInterval(1)) else {
            Issue.record("expected the lease: stale in a shared cache"); return
        }
        #expect(previous == stale)
        guard case .load(let validators) = m.claimed(.leased(SharedCacheLease(key: "k", token: "t")), now: Self.now) else { Issue.record("expected load"); return }
        #expect(validators?.etag == "\"v1\"", "revalidated, not downloaded")
    }

    @Test func aStaleSharedEntryWithSharedMaxAgeIsNotServedWhenTheOriginFails() {
        for (cacheControl, servesStale) in [("max-age=0", true), ("max-age=0, s-maxage=0", false), ("max-age=0, proxy-revalidate", false)] {
            var m = machine()
            _ = m.start()
            _ = m.diskRead(nil, now: Self.now)
            _ = m.sharedRead(entry(["Cache-Control": cacheControl, "ETag": "\"v1\""]), now: Self.now.addingTimeInterval(1))
            _ = m.claimed(.leased(SharedCacheLease(key: "k", token: "t")), now: Self.now)
            let action = m.loadFailed(DataLoadingError.statusCode(503), now: Self.now)
            if case .finish(let result, _, _) = action {
                #expect(servesStale && result.source == .shared, "\(cacheControl)")
            } else {
                #expect(!servesStale, "\(cacheControl)")
            }
        }
    }

    @Test func aDiskEntryForOtherVaryValuesIsAMiss() {
        let a = CacheRulesTests.request(["Cookie": "session=A"])
        let b = CacheRulesTests.request(["Cookie": "session=B"])
        let stored = entry(["Cache-Control": "max-age=3600", "Vary": "Cookie", "ETag": "\"a\""], for: a)
        var same = machine(a)
        _ = same.start()
        guard case .finish(let hit, _, _) = same.diskRead(stored, now: Self.now) else { Issue.record("expected a disk hit"); return }
        #expect(hit.source == .disk)
        var other = machine(b)
        _ = other.start()
        // Neither served nor used for validators: the shared tier is asked, then the network.
        guard case .readShared = other.diskRead(stored, now: Self.now) else { Issue.record("expected readShared"); return }
        guard case .claimShared(let previous) = other.sharedRead(stored, now: Self.now) else { Issue.record("expected claimShared"); return }
        #expect(previous == nil)
        guard case .load(let validators) = other.claimed(.leased(SharedCacheLease(key: "k", token: "t")), now: Self.now) else { Issue.record("expected load"); return }
        #expect(validators == nil)
        // Nor served stale when the origin fails.
        guard case .fail = other.loadFailed(DataLoadingError.statusCode(503), now: Self.now) else { Issue.record("expected fail"); return }
    }

    @Test func aHoldersResultForOtherVaryValuesIsNotServed() {
        let a = CacheRulesTests.request(["Cookie": "session=A"])
        let b = CacheRulesTests.request(["Cookie": "session=B"])
        var m = machine(b)
        _ = m.start()
        _ = m.diskRead(nil, now: Self.now)
        _ = m.sharedRead(nil, now: Self.now)
        _ = m.claimed(.heldElsewhere, now: Self.now)
        guard case .load = m.awaited(entry(["Cache-Control": "max-age=60", "Vary": "Cookie"], for: a), now: Self.now) else {
            Issue.record("expected its own download"); return
        }
        var claimed = machine(b)
        _ = claimed.start()
        _ = claimed.diskRead(nil, now: Self.now)
        _ = claimed.sharedRead(nil, now: Self.now)
        guard case .load = claimed.claimed(.stored(entry(["Cache-Control": "max-age=60", "Vary": "Cookie"], for: a)), now: Self.now) else {
            Issue.record("expected its own download"); return
        }
    }

    @Test func aDownloadRecordsItsVaryKey() throws {
        let a = CacheRulesTests.request(["Cookie": "session=A"])
        var m = machine(a)
        let (result, write, share) = try #require(download(["Cache-Control": "max-age=60", "Vary": "Cookie"], &m))
        #expect(result.metadata.varyKey == a.varyKey(for: "Cookie"))
        #expect(write == .store)
        #expect(share == .store)
        var star = machine(a)
        let (_, starWrite, starShare) = try #require(download(["Cache-Control": "max-age=60", "Vary": "*"], &star))
        #expect(starWrite == .none)
        #expect(starShare == .refused(.unmatchableVary))
    }

    @Test(arguments: ["max-age='3600'", "max-age =100", "max-age= 100", "max-age=a100", "max-age=100a"])
    func aMalformedMaxAgeIsStaleOnArrival(cacheControl: String) throws {
        var m = machine()
        let (result, write, _) = try #require(download(["Cache-Control": cacheControl, "ETag": "\"v\""], &m))
        #expect(result.isStaleOnArrival, "\(cacheControl)")
        #expect(write == .store, "kept for revalidation")
    }

    @Test func aServiceAppliesTheSharedRulesToItsOwnDisk() throws {
        var m = machine(localScope: .shared)
        let (_, write, share) = try #require(download(["Cache-Control": "private, max-age=3600"], &m))
        #expect(write == .none)
        #expect(share == .refused(.private))
        var fresh = machine(localScope: .shared)
        _ = fresh.start()
        // Fresh for one user (max-age), stale for many (s-maxage=0): revalidated.
        guard case .readShared = fresh.diskRead(entry(["Cache-Control": "max-age=3600, s-maxage=0"]), now: Self.now.addingTimeInterval(1)) else {
            Issue.record("expected the disk entry to be stale"); return
        }
    }
}
