import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import Testing

/// A redirect target answering from its own entry, with no I/O: what the loader is told for
/// each target, and what a fetch that ends there delivers and writes.
@Suite struct FetchStateMachineRedirectTargetTests {
    static let now = FetchStateMachineTests.now
    let base = FetchStateMachineTests()
    let redirect = FetchStateMachineRedirectTests()

    var rules: FetchStateMachine.RedirectTargetRules {
        FetchStateMachine.RedirectTargetRules(rules: CacheRules(scope: .private, policy: .http), sharedRules: nil)
    }

    func target(_ entry: DataCacheEntry?, isOwnKey: Bool = false) -> FetchStateMachine.RedirectTarget {
        rules.lookup(key: "target", isOwnKey: isOwnKey, entry: entry, request: CacheRequestFacts(), now: Self.now)
    }

    /// A machine waiting on the network after a disk read that gave `stored`.
    func loading(_ stored: DataCacheEntry? = nil, _ inputs: FetchStateMachine.Inputs? = nil) -> FetchStateMachine {
        var machine = FetchStateMachine(inputs ?? base.inputs())
        _ = machine.start()
        _ = machine.diskRead(stored, now: Self.now)
        return machine
    }

    @Test func whatTheLoaderIsToldForEachTarget() {
        #expect(target(base.entry(expiresIn: 60)).answer == .cached)
        #expect(target(base.entry(expiresIn: -1, etag: "\"v\"")).answer == .revalidate(etag: "\"v\"", lastModified: nil))
        #expect(target(base.entry(expiresIn: -1)).answer == .request, "stale without validators")
        #expect(target(nil).answer == .request)
        let own = target(base.entry(expiresIn: 60), isOwnKey: true)
        #expect(own.answer == .request && !own.hasOwnKey, "the key asked for stands for the chain, never for its target")
        var varying = base.entry(expiresIn: 60)
        varying.metadata.vary = "Cookie"
        #expect(target(varying).answer == .request, "stored for other Vary values")
    }

    @Test func onlyALoadThatReadsTheCachesUnderTheHTTPPolicyMayBeAnsweredByATarget() {
        #expect(loading().redirectTargetRules != nil)
        #expect(loading(nil, base.inputs(readsCaches: false)).redirectTargetRules == nil, "a reload")
        #expect(loading(nil, base.inputs(policy: .ignoreHTTPHeaders)).redirectTargetRules == nil)
        #expect(FetchStateMachine(base.inputs()).redirectTargetRules == nil, "not loading")
    }

    @Test func aFreshTargetEndsTheFetchWithItsBytesOnTheChainsTerms() throws {
        var machine = loading()
        let cached = target(base.entry(expiresIn: 3600, etag: "\"t\""))
        guard case .finish(let result, let write, let share) = machine.loaded(
            Data(), response: LoadedResponse(redirect.hop(302)), redirects: [HTTPResponseHead(redirect.hop(302))],
            exchange: base.exchange, target: cached) else { Issue.record("expected finish"); return }
        #expect(result.source == .disk)
        #expect(result.data == FetchStateMachineTests.png)
        #expect(result.metadata.expiresAt == Self.now, "the 302 without freshness: stale at once under the URL asked for")
        #expect(result.metadata.etag == nil, "validators stay with the target")
        #expect(write == .store, "nothing was stored under the URL asked for")
        #expect(share == .none)
        #expect(result.redirectTarget == nil, "the target's entry is not written again")
    }

    @Test func theURLAskedForIsNotWrittenAgainWhenItHoldsTheSameBytes() {
        var machine = loading(base.entry(expiresIn: -1))
        guard case .finish(_, let write, _) = machine.loaded(
            Data(), response: LoadedResponse(redirect.hop(302)), redirects: [HTTPResponseHead(redirect.hop(302))],
            exchange: base.exchange, target: target(base.entry(expiresIn: 3600))) else { Issue.record("expected finish"); return }
        #expect(write == .updateMetadata)
    }

    @Test func aNoStoreRedirectToAFreshTargetStoresNothingUnderTheURLAskedFor() {
        var machine = loading()
        let hop = redirect.hop(302, ["Cache-Control": "no-store"])
        guard case .finish(let result, let write, _) = machine.loaded(
            Data(), response: LoadedResponse(hop), redirects: [HTTPResponseHead(hop)],
            exchange: base.exchange, target: target(base.entry(expiresIn: 3600))) else { Issue.record("expected finish"); return }
        #expect(write == .none)
        #expect(CacheControl(result.metadata.cacheControl).noStore)
    }

    @Test func aTargets304RefreshesItsOwnEntry() throws {
        var machine = loading()
        let stale = target(base.entry(expiresIn: -1, etag: "\"t\""))
        let notModified = base.response(304, ["ETag": "\"t\"", "Cache-Control": "max-age=60"])
        guard case .finish(let result, _, _) = machine.loaded(
            Data(), response: LoadedResponse(notModified), redirects: [HTTPResponseHead(redirect.hop(302))],
            exchange: base.exchange, target: stale) else { Issue.record("expected finish"); return }
        #expect(result.source == .revalidated)
        let write = try #require(result.redirectTarget)
        #expect(write.key == "target" && write.write == .updateMetadata)
        #expect(write.metadata.expiresAt == Self.now.addingTimeInterval(60))
        #expect(write.metadata.etag == "\"t\"")
        #expect(result.metadata.etag == nil)
    }

    @Test func aTargets304ForAnotherETagAsksTheChainAgainWithoutTargets() {
        var machine = loading()
        let stale = target(base.entry(expiresIn: -1, etag: "\"t\""))
        guard case .load = machine.loaded(
            Data(), response: LoadedResponse(base.response(304, ["ETag": "\"other\""])),
            redirects: [HTTPResponseHead(redirect.hop(302))], exchange: base.exchange, target: stale) else {
            Issue.record("expected load"); return
        }
        #expect(machine.redirectTargetRules == nil)
    }

    @Test func aDownloadedTargetIsWrittenUnderItsOwnKeyWithItsOwnMetadata() throws {
        var machine = loading()
        guard case .finish(let result, let write, _) = machine.loaded(
            FetchStateMachineTests.png, response: LoadedResponse(base.response(200, ["Cache-Control": "max-age=3600", "ETag": "\"t\""])),
            redirects: [HTTPResponseHead(redirect.hop(302))], exchange: base.exchange, target: target(nil)) else {
            Issue.record("expected finish"); return
        }
        #expect(write == .store)
        #expect(result.metadata.etag == nil)
        let own = try #require(result.redirectTarget)
        #expect(own.write == .store && own.metadata.etag == "\"t\"")
        #expect(own.metadata.expiresAt == Self.now.addingTimeInterval(3600))
        #expect(!own.shares, "no shared tier")
    }

    @Test func aTargetWithoutAKeyOfItsOwnIsNotWritten() {
        var machine = loading()
        guard case .finish(let result, _, _) = machine.loaded(
            FetchStateMachineTests.png, response: LoadedResponse(base.response(200, ["Cache-Control": "max-age=3600"])),
            redirects: [HTTPResponseHead(redirect.hop(302))], exchange: base.exchange,
            target: target(nil, isOwnKey: true)) else { Issue.record("expected finish"); return }
        #expect(result.redirectTarget == nil)
    }
}
