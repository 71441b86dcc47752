import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import Testing

/// Which tier answers a fetch, with no disk, no network and no clock but the one passed in.
@Suite struct FetchStateMachineTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let url = URL(string: "https://example.test/a.png")!
    /// A PNG's signature and first chunk header, then its IEND chunk: bytes that are not cut.
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        + [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])

    func inputs(
        readsCaches: Bool = true, cacheOnly: Bool = false, policy: ImagePipeline.HTTPCachePolicy = .http,
        servesStale: Bool = true, shared: Bool = false
    ) -> FetchStateMachine.Inputs {
        .init(readsCaches: readsCaches, isCacheOnly: cacheOnly, policy: policy, servesStaleOnError: servesStale,
              hasSharedTier: shared, heuristicCap: 86_400)
    }

    func entry(expiresIn seconds: Double?, etag: String? = nil, cacheControl: String? = nil) -> DataCacheEntry {
        DataCacheEntry(data: Self.png, metadata: DataCacheMetadata(
            etag: etag, cacheControl: cacheControl, expiresAt: seconds.map { Self.now.addingTimeInterval($0) }, format: .png,
            sharedExpiresAt: seconds.map { Self.now.addingTimeInterval($0) }))
    }

    func response(_ status: Int, _ headers: [String: String] = [:]) -> HTTPURLResponse {
        HTTPURLResponse(url: Self.url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    var exchange: HTTPFreshness.Exchange { .init(requested: Self.now, received: Self.now) }

    @Test func aFreshDiskEntryIsServedWithoutTheNetwork() {
        var machine = FetchStateMachine(inputs())
        guard case .readDisk = machine.start() else { Issue.record("expected readDisk"); return }
        guard case .finish(let result, let write, _) = machine.diskRead(entry(expiresIn: 60), now: Self.now) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .disk)
        #expect(write == .none)
    }

    @Test func aStaleEntryWithValidatorsIsRevalidatedAndA304RefreshesIt() {
        var machine = FetchStateMachine(inputs())
        _ = machine.start()
        guard case .load(let validators) = machine.diskRead(entry(expiresIn: -1, etag: "\"v\""), now: Self.now) else {
            Issue.record("expected load"); return
        }
        #expect(validators?.etag == "\"v\"")
        guard case .finish(let result, let write, _) = machine.loaded(Data(), response: response(304, ["Cache-Control": "max-age=60"]), exchange: exchange) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .revalidated)
        #expect(result.data == Self.png)
        #expect(write == .updateMetadata)
        #expect(result.metadata.expiresAt == Self.now.addingTimeInterval(60))
    }

    /// A 304 that names another representation (its `ETag` is not the stored one; RFC 9111
    /// §4.3.4) confirms nothing: the image is asked for again without validators, and that
    /// answer is what is served and stored. It used to serve the old entry as confirmed.
    @Test(arguments: [("\"v2\"", "\"v1\""), ("W/\"v2\"", "\"v1\"")])
    func a304ForAnotherRepresentationIsFollowedByAnUnconditionalRequest(sent: String, stored: String) {
        var machine = FetchStateMachine(inputs())
        _ = machine.start()
        guard case .load(let validators) = machine.diskRead(entry(expiresIn: -1, etag: stored), now: Self.now) else {
            Issue.record("expected load"); return
        }
        #expect(validators?.etag == stored)
        guard case .load(let again) = machine.loaded(Data(), response: response(304, ["ETag": sent]), exchange: exchange) else {
            Issue.record("expected an unconditional load"); return
        }
        #expect(again == nil)
        // A 304 to the unconditional request is a server error, never the old bytes.
        var bogus = machine
        guard case .fail = bogus.loaded(Data(), response: response(304, ["ETag": sent]), exchange: exchange) else {
            Issue.record("expected fail"); return
        }
        let fresh = Data(Self.png + [1, 2, 3])
        guard case .finish(let result, let write, _) = machine.loaded(fresh, response: response(200, ["ETag": sent, "Cache-Control": "max-age=60"]), exchange: exchange) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .network && result.data == fresh && write == .store)
        #expect(result.metadata.etag == sent)
    }

    /// The same tag, or a weak form of it, or a 304 without any `ETag`, confirms the entry.
    @Test(arguments: [["ETag": "\"v1\""], ["ETag": "W/\"v1\""], [:]])
    func a304ForTheStoredRepresentationConfirmsIt(headers: [String: String]) {
        var machine = FetchStateMachine(inputs())
        _ = machine.start()
        _ = machine.diskRead(entry(expiresIn: -1, etag: "\"v1\""), now: Self.now)
        guard case .finish(let result, let write, _) = machine.loaded(Data(), response: response(304, headers), exchange: exchange) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .revalidated && write == .updateMetadata)
    }

    /// An entry validated by date alone is not confirmed by a 304 that gives another date.
    @Test func a304WithAnotherLastModifiedIsFollowedByAnUnconditionalRequest() {
        var machine = FetchStateMachine(inputs())
        _ = machine.start()
        let stored = DataCacheEntry(data: Self.png, metadata: DataCacheMetadata(
            lastModified: "Wed, 01 Jan 2025 00:00:00 GMT", expiresAt: Self.now.addingTimeInterval(-1), format: .png))
        _ = machine.diskRead(stored, now: Self.now)
        guard case .load(let again) = machine.loaded(Data(), response: response(304, ["Last-Modified": "Thu, 02 Jan 2025 00:00:00 GMT"]), exchange: exchange) else {
            Issue.record("expected an unconditional load"); return
        }
        #expect(again == nil)
        var same = FetchStateMachine(inputs())
        _ = same.start()
        _ = same.diskRead(stored, now: Self.now)
        guard case .finish(let result, _, _) = same.loaded(Data(), response: response(304, ["Last-Modified": "Wed, 01 Jan 2025 00:00:00 GMT"]), exchange: exchange) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .revalidated)
    }

    @Test func aStaleEntryWithoutValidatorsIsDownloadedUnconditionally() {
        var machine = FetchStateMachine(inputs())
        _ = machine.start()
        guard case .load(let validators) = machine.diskRead(entry(expiresIn: -1), now: Self.now) else { Issue.record("expected load"); return }
        #expect(validators == nil)
        // A 304 that nobody asked for is an error, never the stale bytes.
        guard case .fail = machine.loaded(Data(), response: response(304), exchange: exchange) else { Issue.record("expected fail"); return }
    }

    @Test func aDownloadIsStoredUnlessNoStore() {
        for (headers, expected) in [([String: String](), FetchStateMachine.CacheWrite.store), (["Cache-Control": "no-store"], .none)] {
            var machine = FetchStateMachine(inputs())
            _ = machine.start()
            _ = machine.diskRead(nil, now: Self.now)
            guard case .finish(let result, let write, _) = machine.loaded(Self.png, response: response(200, headers), exchange: exchange) else {
                Issue.record("expected finish"); return
            }
            #expect(result.source == .network)
            #expect(write == expected)
        }
    }

    @Test func ignoringHTTPHeadersStoresNoStoreAndServesStaleEntries() {
        var machine = FetchStateMachine(inputs(policy: .ignoreHTTPHeaders))
        _ = machine.start()
        guard case .finish(let result, _, _) = machine.diskRead(entry(expiresIn: -3600), now: Self.now) else { Issue.record("expected finish"); return }
        #expect(result.source == .disk)
        var second = FetchStateMachine(inputs(policy: .ignoreHTTPHeaders))
        _ = second.start()
        _ = second.diskRead(nil, now: Self.now)
        guard case .finish(_, let write, _) = second.loaded(Self.png, response: response(200, ["Cache-Control": "no-store"]), exchange: exchange) else {
            Issue.record("expected finish"); return
        }
        #expect(write == .store)
    }

    @Test func localFilesAreNeverStored() {
        var machine = FetchStateMachine(inputs())
        _ = machine.start()
        _ = machine.diskRead(nil, now: Self.now)
        let file = URLResponse(url: URL(fileURLWithPath: "/tmp/a.png"), mimeType: nil, expectedContentLength: 16, textEncodingName: nil)
        guard case .finish(_, let write, _) = machine.loaded(Self.png, response: file, exchange: exchange) else { Issue.record("expected finish"); return }
        #expect(write == .none)
    }

    @Test func cacheOnlyServesAnyEntryAndFailsOnAMiss() {
        var hit = FetchStateMachine(inputs(cacheOnly: true))
        _ = hit.start()
        guard case .finish(let result, _, _) = hit.diskRead(entry(expiresIn: -3600), now: Self.now) else { Issue.record("expected finish"); return }
        #expect(result.source == .disk)
        var miss = FetchStateMachine(inputs(cacheOnly: true))
        _ = miss.start()
        guard case .fail(let error) = miss.diskRead(nil, now: Self.now) else { Issue.record("expected fail"); return }
        #expect(error as? DataLoadingError == .notCached)
        var reloadOnly = FetchStateMachine(inputs(readsCaches: false, cacheOnly: true))
        guard case .fail = reloadOnly.start() else { Issue.record("expected fail"); return }
    }

    @Test func aReloadSkipsEveryCacheTier() {
        var machine = FetchStateMachine(inputs(readsCaches: false, shared: true))
        guard case .load(let validators) = machine.start() else { Issue.record("expected load"); return }
        #expect(validators == nil)
    }

    @Test func theSharedTierSitsBetweenDiskAndNetwork() {
        var machine = FetchStateMachine(inputs(shared: true))
        _ = machine.start()
        guard case .readShared = machine.diskRead(nil, now: Self.now) else { Issue.record("expected readShared"); return }
        guard case .finish(let result, let write, _) = machine.sharedRead(entry(expiresIn: 60), now: Self.now) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .shared)
        #expect(write == .store, "a shared hit is written to the local disk cache")
        var miss = FetchStateMachine(inputs(shared: true))
        _ = miss.start()
        _ = miss.diskRead(entry(expiresIn: -1, etag: "\"v\""), now: Self.now)
        guard case .claimShared(_) = miss.sharedRead(nil, now: Self.now) else { Issue.record("expected claimShared"); return }
        guard case .load(let validators) = miss.claimed(.unavailable, now: Self.now) else { Issue.record("expected load"); return }
        #expect(validators?.etag == "\"v\"", "the disk entry's validators still revalidate after a shared miss")
    }

    @Test func aStaleEntryStandsInForATransientFailureOnly() {
        func run(_ error: any Error, cacheControl: String? = nil, servesStale: Bool = true) -> FetchStateMachine.Action {
            var machine = FetchStateMachine(inputs(servesStale: servesStale))
            _ = machine.start()
            _ = machine.diskRead(entry(expiresIn: -1, etag: "\"v\"", cacheControl: cacheControl), now: Self.now)
            return machine.loadFailed(error, now: Self.now)
        }
        guard case .finish(let result, .none, _) = run(DataLoadingError.statusCode(503)) else { Issue.record("expected stale"); return }
        #expect(result.source == .disk)
        guard case .fail = run(DataLoadingError.statusCode(404)) else { Issue.record("a 404 is not transient"); return }
        guard case .fail = run(DataLoadingError.statusCode(503), cacheControl: "must-revalidate") else { Issue.record("must-revalidate"); return }
        guard case .fail = run(DataLoadingError.statusCode(503), servesStale: false) else { Issue.record("turned off"); return }
    }

    @Test func aTransitionOutOfOrderFailsInsteadOfCrashing() {
        var machine = FetchStateMachine(inputs())
        guard case .fail = machine.loaded(Self.png, response: response(200), exchange: exchange) else { Issue.record("expected fail"); return }
    }
}

/// Freshness as RFC 9111 §4.2 computes it, with times passed in.
@Suite struct HTTPFreshnessTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    func metadata(_ headers: [String: String], requested: Date = now, received: Date = now) -> DataCacheMetadata {
        let response = HTTPURLResponse(url: URL(string: "https://example.test/a")!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers)!
        return HTTPFreshness.metadata(
            for: HTTPResponseHead(response), data: Data(), exchange: .init(requested: requested, received: received), heuristicCap: 86_400)
    }

    @Test(arguments: [-86_400.0, -3600, 0, 3600, 86_400])
    func expiresCountsFromTheServersDate(skew: Double) {
        let serverNow = Self.now.addingTimeInterval(skew)
        let m = metadata(["Date": HTTPDate.format(serverNow), "Expires": HTTPDate.format(serverNow.addingTimeInterval(600))])
        #expect(m.expiresAt == Self.now.addingTimeInterval(600))
    }

    @Test func maxAgeWinsOverExpiresAndAgeAndTheRequestTimeAreSubtracted() {
        let m = metadata(["Cache-Control": "max-age=600", "Age": "100", "Expires": HTTPDate.format(Self.now.addingTimeInterval(9999))],
                         requested: Self.now.addingTimeInterval(-5))
        #expect(m.expiresAt == Self.now.addingTimeInterval(600 - 100 - 5))
    }

    @Test func aSkewedDateDoesNotShortenMaxAge() {
        let m = metadata(["Cache-Control": "max-age=600", "Date": HTTPDate.format(Self.now.addingTimeInterval(-86_400))])
        #expect(m.expiresAt == Self.now.addingTimeInterval(600))
    }

    @Test func heuristicFreshnessUsesTheServersDate() {
        let serverNow = Self.now.addingTimeInterval(-7200)
        let m = metadata(["Date": HTTPDate.format(serverNow), "Last-Modified": HTTPDate.format(serverNow.addingTimeInterval(-10_000))])
        #expect(m.expiresAt == Self.now.addingTimeInterval(1000))
    }

    @Test func anInvalidExpiresIsInThePast() {
        #expect(metadata(["Expires": "0"]).expiresAt == .distantPast)
    }

    @Test func varyOtherThanAcceptEncodingIsKeptForMatchingAndDoesNotChangeFreshness() {
        #expect(HTTPFreshness.selectingVary("Accept-Encoding") == nil)
        #expect(HTTPFreshness.selectingVary(" accept-encoding , ") == nil)
        #expect(HTTPFreshness.selectingVary("*") == "*")
        #expect(HTTPFreshness.selectingVary("Accept-Encoding, User-Agent") != nil)
        let m = metadata(["Cache-Control": "max-age=600", "Vary": "Accept"])
        #expect(m.vary == "Accept")
        #expect(m.expiresAt == Self.now.addingTimeInterval(600), "an entry that matches the request is fresh as any other")
        #expect(metadata(["Cache-Control": "max-age=600", "Vary": "Accept-Encoding"]).vary == nil)
    }
}

/// URLs as users type them, percent-encoded exactly once.
@Suite struct URLNormalizationTests {
    @Test(arguments: [
        ("http://h/a b.png", "http://h/a%20b.png"),
        ("http://h/caf\u{E9}.png?q=\u{E9}t\u{E9}#fr\u{E9}", "http://h/caf%C3%A9.png?q=%C3%A9t%C3%A9#fr%C3%A9"),
        ("http://h/a%20b.png", "http://h/a%20b.png"),
        ("http://h/100%.png", "http://h/100%25.png"),
        ("http://h/%E2%82%AC and \u{20AC}", "http://h/%E2%82%AC%20and%20%E2%82%AC"),
        ("https://user@h:8080/p?x=1&y=[2]", "https://user@h:8080/p?x=1&y=[2]"),
        ("http://h/\"quoted\"<>", "http://h/%22quoted%22%3C%3E"),
    ])
    func encodesOnce(input: String, expected: String) {
        #expect(URLNormalization.percentEncoded(input) == expected)
        #expect(URLNormalization.percentEncoded(expected) == expected, "encoding twice changes nothing")
        #expect(URLNormalization.url(input) != nil)
    }
}

/// Answers reached through redirects, with no I/O.
@Suite struct FetchStateMachineRedirectTests {
    static let now = FetchStateMachineTests.now
    let base = FetchStateMachineTests()

    func hop(_ status: Int, _ headers: [String: String] = [:]) -> HTTPURLResponse {
        HTTPURLResponse(url: FetchStateMachineTests.url, statusCode: status, httpVersion: "HTTP/1.1",
                        headerFields: headers.merging(["Location": "/b"]) { a, _ in a })!
    }

    func load(through redirects: [HTTPURLResponse], final: [String: String] = ["Cache-Control": "max-age=3600", "ETag": "\"t\""])
        -> (FetchResult, FetchStateMachine.CacheWrite)? {
        var machine = FetchStateMachine(base.inputs())
        _ = machine.start()
        _ = machine.diskRead(nil, now: Self.now)
        guard case .finish(let result, let write, _) = machine.loaded(
            FetchStateMachineTests.png, response: base.response(200, final), redirects: redirects, exchange: base.exchange) else { return nil }
        return (result, write)
    }

    @Test func aNoStoreRedirectIsNeverStored() throws {
        let (_, write) = try #require(load(through: [hop(302, ["Cache-Control": "no-store"])]))
        #expect(write == .none)
    }

    /// Nothing made from the image is kept either (the processed variant reads the result's
    /// metadata): the result says `no-store`, whatever the target's own headers say, for a
    /// permanent redirect as for a temporary one.
    @Test(arguments: [301, 302, 307, 308])
    func aNoStoreRedirectsResultSaysNoStore(code: Int) throws {
        let (result, write) = try #require(load(through: [hop(code, ["Cache-Control": "no-store"])]))
        #expect(write == .none)
        #expect(CacheControl(result.metadata.cacheControl).noStore)
        #expect(!result.isStaleOnArrival)
    }

    @Test func aTemporaryRedirectWithoutFreshnessIsStaleAtOnceAndKeepsNoValidators() throws {
        let (result, write) = try #require(load(through: [hop(302)]))
        #expect(write == .store)
        #expect(result.metadata.expiresAt == Self.now)
        #expect(result.metadata.etag == nil && result.metadata.lastModified == nil)
    }

    @Test func thePermanentAndTheCacheableRedirectsLimitFreshnessToTheirOwn() throws {
        let permanent = try #require(load(through: [hop(301)]))
        #expect(permanent.0.metadata.expiresAt == Self.now.addingTimeInterval(3600))
        let short = try #require(load(through: [hop(301), hop(307, ["Cache-Control": "max-age=60"])]))
        #expect(short.0.metadata.expiresAt == Self.now.addingTimeInterval(60))
    }

    @Test func withoutRedirectsNothingChanges() throws {
        let (result, _) = try #require(load(through: []))
        #expect(result.metadata.etag == "\"t\"")
        #expect(result.metadata.expiresAt == Self.now.addingTimeInterval(3600))
    }
}

/// Which answers of the origin are stored already stale (every later use asks the server).
@Suite struct StaleOnArrivalTests {
    let base = FetchStateMachineTests()

    /// A download with `headers`, after a disk miss.
    func download(_ headers: [String: String], policy: ImagePipeline.HTTPCachePolicy = .http) -> FetchResult? {
        var machine = FetchStateMachine(base.inputs(policy: policy))
        _ = machine.start()
        _ = machine.diskRead(nil, now: FetchStateMachineTests.now)
        guard case .finish(let result, _, _) = machine.loaded(
            FetchStateMachineTests.png, response: base.response(200, headers), exchange: base.exchange) else { return nil }
        return result
    }

    @Test(arguments: [
        ["Cache-Control": "max-age=0", "ETag": "\"a\""],
        ["Cache-Control": "no-cache", "ETag": "\"a\""],
        ["Cache-Control": "max-age=60", "Age": "120"],
        ["Expires": "Thu, 01 Jan 1970 00:00:00 GMT", "Date": "Fri, 15 Jan 2027 08:00:00 GMT"],
        ["ETag": "\"only a validator\""],
    ])
    func aDownloadWhoseLifetimeIsAlreadyOverIsStaleOnArrival(headers: [String: String]) throws {
        let result = try #require(download(headers))
        #expect(result.isStaleOnArrival, "\(headers)")
    }

    @Test(arguments: [
        ["Cache-Control": "max-age=60", "ETag": "\"a\""],
        ["Cache-Control": "no-store, max-age=0"],
        ["Last-Modified": "Thu, 01 Jan 2026 00:00:00 GMT", "Date": "Fri, 15 Jan 2027 08:00:00 GMT"],
    ])
    func freshOrUnstoredDownloadsAreNot(headers: [String: String]) throws {
        let result = try #require(download(headers))
        #expect(!result.isStaleOnArrival, "\(headers)")
    }

    @Test func aResponseWithNeitherFreshnessNorValidatorsIsFreshForTheDefaultLifetimeOnly() throws {
        for (lifetime, expected) in [(Double?.none, true), (3600, false)] {
            var inputs = base.inputs()
            inputs.defaultLifetime = lifetime
            var machine = FetchStateMachine(inputs)
            _ = machine.start()
            _ = machine.diskRead(nil, now: FetchStateMachineTests.now)
            guard case .finish(let result, _, _) = machine.loaded(
                FetchStateMachineTests.png, response: base.response(200), exchange: base.exchange) else {
                Issue.record("expected finish"); return
            }
            #expect(result.isStaleOnArrival == expected, "\(String(describing: lifetime))")
        }
    }

    @Test func ignoringHTTPHeadersNothingIsStaleOnArrival() throws {
        let result = try #require(download(["Cache-Control": "max-age=0", "ETag": "\"a\""], policy: .ignoreHTTPHeaders))
        #expect(!result.isStaleOnArrival)
    }

    @Test func a304ThatLeavesTheEntryStaleIsStaleOnArrivalAndOneThatRefreshesItIsNot() {
        for (cacheControl, expected) in [("max-age=0", true), ("max-age=60", false)] {
            var machine = FetchStateMachine(base.inputs())
            _ = machine.start()
            _ = machine.diskRead(base.entry(expiresIn: -1, etag: "\"v\"", cacheControl: "max-age=0"), now: FetchStateMachineTests.now)
            guard case .finish(let result, _, _) = machine.loaded(
                Data(), response: base.response(304, ["Cache-Control": cacheControl]), exchange: base.exchange) else {
                Issue.record("expected finish"); return
            }
            #expect(result.source == .revalidated)
            #expect(result.isStaleOnArrival == expected, "\(cacheControl)")
        }
    }

    @Test func cacheHitsAreNeverStaleOnArrival() {
        var machine = FetchStateMachine(base.inputs(cacheOnly: true))
        _ = machine.start()
        guard case .finish(let result, _, _) = machine.diskRead(base.entry(expiresIn: -1, etag: "\"v\""), now: FetchStateMachineTests.now) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .disk)
        #expect(!result.isStaleOnArrival)
    }
}
