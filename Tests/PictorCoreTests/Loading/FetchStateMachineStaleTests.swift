import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import Testing

/// Stale entries that answer at once while the fetch stage revalidates them in the background
/// (`stale-while-revalidate`, RFC 5861 §3, and the `returnCachedThenRevalidate` policy), and
/// the `stale-if-error` bound on standing in for a failed revalidation (RFC 5861 §4).
@Suite struct FetchStateMachineStaleTests {
    static let now = FetchStateMachineTests.now
    static let png = FetchStateMachineTests.png

    func machine(
        policy: ImagePipeline.HTTPCachePolicy = .http, shared: Bool = false, cacheOnly: Bool = false,
        servesWhileRevalidating: Bool = true
    ) -> FetchStateMachine {
        var inputs = FetchStateMachine.Inputs(
            readsCaches: true, isCacheOnly: cacheOnly, policy: policy, servesStaleOnError: true, hasSharedTier: shared,
            heuristicCap: 86_400)
        inputs.servesWhileRevalidating = servesWhileRevalidating
        return FetchStateMachine(inputs)
    }

    /// An entry whose private and shared expiry was `expiredAgo` seconds before ``now``.
    func entry(expiredAgo: Double?, cacheControl: String?, etag: String? = "\"v1\"") -> DataCacheEntry {
        let expiry = expiredAgo.map { Self.now.addingTimeInterval(-$0) }
        return DataCacheEntry(data: Self.png, metadata: DataCacheMetadata(
            etag: etag, cacheControl: cacheControl, expiresAt: expiry, format: .png, sharedExpiresAt: expiry))
    }

    @Test func aDiskEntryWithinItsStaleWhileRevalidateWindowAnswersAtOnceAndAsksForABackgroundRevalidation() {
        var m = machine()
        _ = m.start()
        let stale = entry(expiredAgo: 30, cacheControl: "max-age=60, stale-while-revalidate=60")
        guard case .finish(let result, let write, let share) = m.diskRead(stale, now: Self.now) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .disk && result.data == Self.png)
        #expect(result.revalidatesInBackground)
        #expect(write == .none && share == .none)
    }

    @Test func pastTheWindowTheEntryIsRevalidatedBeforeItAnswers() {
        var m = machine()
        _ = m.start()
        guard case .load(let validators) = m.diskRead(
            entry(expiredAgo: 61, cacheControl: "max-age=60, stale-while-revalidate=60"), now: Self.now) else {
            Issue.record("expected load"); return
        }
        #expect(validators?.etag == "\"v1\"")
    }

    /// `must-revalidate` and `no-cache` forbid any stale answer, the window notwithstanding.
    @Test(arguments: ["max-age=60, stale-while-revalidate=60, must-revalidate", "no-cache, stale-while-revalidate=60"])
    func mustRevalidateForbidsIt(cacheControl: String) {
        var m = machine()
        _ = m.start()
        guard case .load = m.diskRead(entry(expiredAgo: 1, cacheControl: cacheControl), now: Self.now) else {
            Issue.record("expected load: \(cacheControl)"); return
        }
    }

    /// The background revalidation's own fetch asks the server (conditionally), never answers
    /// with the stale entry it was started for.
    @Test func theBackgroundRevalidationItselfLoadsWithTheEntrysValidators() {
        var m = machine(servesWhileRevalidating: false)
        _ = m.start()
        guard case .load(let validators) = m.diskRead(
            entry(expiredAgo: 1, cacheControl: "max-age=60, stale-while-revalidate=60"), now: Self.now) else {
            Issue.record("expected load"); return
        }
        #expect(validators?.etag == "\"v1\"")
        // Its 304 refreshes the entry's metadata; its 200 replaces the entry.
        let head = HTTPURLResponse(url: FetchStateMachineTests.url, statusCode: 304, httpVersion: "HTTP/1.1",
                                   headerFields: ["Cache-Control": "max-age=60, stale-while-revalidate=60"])!
        var copy = m
        guard case .finish(let result, let write, _) = copy.loaded(
            Data(), response: head, exchange: .init(requested: Self.now, received: Self.now)) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .revalidated && write == .updateMetadata && !result.revalidatesInBackground)
        let new = HTTPURLResponse(url: FetchStateMachineTests.url, statusCode: 200, httpVersion: "HTTP/1.1",
                                  headerFields: ["Cache-Control": "max-age=60", "ETag": "\"v2\""])!
        guard case .finish(let downloaded, let store, _) = m.loaded(
            Self.png + [1], response: new, exchange: .init(requested: Self.now, received: Self.now)) else {
            Issue.record("expected finish"); return
        }
        #expect(downloaded.source == .network && store == .store)
    }

    /// Under `returnCachedThenRevalidate` any stale entry answers at once: without validators,
    /// without any expiry, with `must-revalidate`.
    @Test(arguments: [
        (nil, nil) as (String?, Double?), ("max-age=60, must-revalidate", 3600), ("no-cache", 0),
    ])
    func thePolicyServesAnyStaleEntry(cacheControl: String?, expiredAgo: Double?) {
        var m = machine(policy: .returnCachedThenRevalidate)
        _ = m.start()
        guard case .finish(let result, _, _) = m.diskRead(
            entry(expiredAgo: expiredAgo, cacheControl: cacheControl, etag: nil), now: Self.now) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .disk && result.revalidatesInBackground)
    }

    /// Under the policy a fresh entry is served as under `http`, with no revalidation.
    @Test func thePolicyServesAFreshEntryWithoutARevalidation() {
        var m = machine(policy: .returnCachedThenRevalidate)
        _ = m.start()
        guard case .finish(let result, _, _) = m.diskRead(entry(expiredAgo: -60, cacheControl: "max-age=60"), now: Self.now) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .disk && !result.revalidatesInBackground)
    }

    /// A cache-only fetch serves any entry and never revalidates: it may not use the network.
    @Test func aCacheOnlyFetchNeverAsksForARevalidation() {
        var m = machine(policy: .returnCachedThenRevalidate, cacheOnly: true)
        _ = m.start()
        guard case .finish(let result, _, _) = m.diskRead(entry(expiredAgo: 3600, cacheControl: nil), now: Self.now) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .disk && !result.revalidatesInBackground)
    }

    /// The shared tier's entry, stale on the shared rules but within its window, answers at once
    /// and is kept on the local disk as it is; the shared tier is not written back.
    @Test func aSharedEntryWithinItsWindowAnswersAtOnceAndIsKeptLocally() {
        var m = machine(shared: true)
        _ = m.start()
        guard case .readShared = m.diskRead(nil, now: Self.now) else { Issue.record("expected readShared"); return }
        let stale = entry(expiredAgo: 10, cacheControl: "s-maxage=60, stale-while-revalidate=30")
        guard case .finish(let result, let write, let share) = m.sharedRead(stale, now: Self.now) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .shared && result.revalidatesInBackground)
        #expect(write == .store && share == .none)
        // `proxy-revalidate` forbids it in the shared tier.
        var n = machine(shared: true)
        _ = n.start()
        _ = n.diskRead(nil, now: Self.now)
        guard case .claimShared = n.sharedRead(
            entry(expiredAgo: 10, cacheControl: "max-age=60, proxy-revalidate, stale-while-revalidate=30"), now: Self.now) else {
            Issue.record("expected claimShared"); return
        }
    }

    /// A stale disk entry within its window answers before the shared tier is read: the
    /// background revalidation reads it.
    @Test func aStaleDiskEntryWithinItsWindowAnswersBeforeTheSharedTier() {
        var m = machine(shared: true)
        _ = m.start()
        guard case .finish(let result, _, _) = m.diskRead(
            entry(expiredAgo: 5, cacheControl: "max-age=60, stale-while-revalidate=60"), now: Self.now) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .disk && result.revalidatesInBackground)
    }

    /// `stale-if-error=N` bounds how long a stale entry stands in for a failed revalidation:
    /// within N seconds of its expiry it does, past them the failure is reported.
    @Test(arguments: [(30.0, true), (61.0, false)])
    func staleIfErrorBoundsTheStandIn(expiredAgo: Double, standsIn: Bool) {
        var m = machine()
        _ = m.start()
        guard case .load = m.diskRead(entry(expiredAgo: expiredAgo, cacheControl: "max-age=60, stale-if-error=60"), now: Self.now) else {
            Issue.record("expected load"); return
        }
        let action = m.loadFailed(DataLoadingError.statusCode(503), now: Self.now)
        switch action {
        case .finish(let result, _, _): #expect(standsIn && result.source == .disk)
        case .fail: #expect(!standsIn)
        default: Issue.record("unexpected \(action)")
        }
    }

    /// `stale-if-error` is explicit permission: it lifts the `proxy-revalidate` that `s-maxage`
    /// implies in the shared tier, within its bound.
    @Test func staleIfErrorLetsAnSMaxageEntryStandInForTheSharedTier() {
        var m = machine(shared: true)
        _ = m.start()
        _ = m.diskRead(nil, now: Self.now)
        _ = m.sharedRead(entry(expiredAgo: 10, cacheControl: "s-maxage=60, stale-if-error=600"), now: Self.now)
        _ = m.claimed(.leased(SharedCacheLease(key: "k", token: "t")), now: Self.now)
        guard case .finish(let result, _, _) = m.loadFailed(DataLoadingError.statusCode(503), now: Self.now) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .shared)
    }
}
