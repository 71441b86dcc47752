import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import Testing

/// The shared fleet tier's place in a fetch: read after the disk, leased before the network,
/// written after a download or a revalidation; all without I/O.
@Suite struct FetchStateMachineSharedTierTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let url = URL(string: "https://example.test/a.png")!
    /// A PNG's signature and first chunk header, then its IEND chunk: bytes that are not cut.
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        + [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])

    func machine(readsCaches: Bool = true, cacheOnly: Bool = false, disk: Bool = true) -> FetchStateMachine {
        FetchStateMachine(.init(readsCaches: readsCaches, isCacheOnly: cacheOnly, policy: .http, servesStaleOnError: true,
                                hasDiskCache: disk, hasSharedTier: true, heuristicCap: 86_400))
    }

    func entry(expiresIn seconds: Double, etag: String? = nil, byte: UInt8 = 0) -> DataCacheEntry {
        DataCacheEntry(data: Self.png + [byte], metadata: DataCacheMetadata(
            etag: etag, expiresAt: Self.now.addingTimeInterval(seconds), format: .png,
            sharedExpiresAt: Self.now.addingTimeInterval(seconds)))
    }

    func response(_ status: Int, _ headers: [String: String] = [:]) -> HTTPURLResponse {
        HTTPURLResponse(url: Self.url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    var exchange: HTTPFreshness.Exchange { .init(requested: Self.now, received: Self.now) }

    @Test func bytesThatEndBeforeTheImageDoesAreWrittenToNoTier() {
        // A GIF whose one frame's data runs past the end, and a PNG with no IEND chunk.
        let cutGIF = Data(Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0] + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 10, 1])
        for cut in [cutGIF, Self.png.prefix(16)] {
            var m = machine()
            _ = m.start()
            _ = m.diskRead(nil, now: Self.now)
            _ = m.sharedRead(nil, now: Self.now)
            _ = m.claimed(.leased(SharedCacheLease(key: "k", token: "t")), now: Self.now)
            guard case .finish(let result, let write, let shares) = m.loaded(cut, response: response(200, ["Cache-Control": "max-age=60"]), exchange: exchange) else {
                Issue.record("expected finish"); return
            }
            #expect(result.source == .network && result.data == cut)
            #expect(write == .none)
            #expect(shares == .none)
            // Served by the tier (another process stored it before this rule): not written locally.
            var n = machine()
            _ = n.start()
            _ = n.diskRead(nil, now: Self.now)
            var stored = entry(expiresIn: 60)
            stored = DataCacheEntry(data: cut, metadata: stored.metadata)
            guard case .finish(let served, let localWrite, _) = n.sharedRead(stored, now: Self.now) else { Issue.record("expected finish"); return }
            #expect(served.source == .shared)
            #expect(localWrite == .none)
        }
    }

    @Test func aMissLeasesDownloadsAndSharesTheResult() {
        var m = machine()
        _ = m.start()
        guard case .readShared = m.diskRead(nil, now: Self.now) else { Issue.record("expected readShared"); return }
        guard case .claimShared(_) = m.sharedRead(nil, now: Self.now) else { Issue.record("expected claimShared"); return }
        guard case .load(let validators) = m.claimed(.leased(SharedCacheLease(key: "k", token: "t")), now: Self.now) else { Issue.record("expected load"); return }
        #expect(validators == nil)
        guard case .finish(let result, let write, let shares) = m.loaded(Self.png, response: response(200), exchange: exchange) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .network)
        #expect(write == .store)
        #expect(shares == .store)
    }

    @Test func aNoStoreDownloadIsNeitherStoredNorShared() {
        var m = machine()
        _ = m.start()
        _ = m.diskRead(nil, now: Self.now)
        _ = m.sharedRead(nil, now: Self.now)
        _ = m.claimed(.leased(SharedCacheLease(key: "k", token: "t")), now: Self.now)
        guard case .finish(_, let write, let shares) = m.loaded(Self.png, response: response(200, ["Cache-Control": "no-store"]), exchange: exchange) else {
            Issue.record("expected finish"); return
        }
        #expect(write == .none)
        #expect(shares == .refused(.noStore))
    }

    @Test func aLeaseHeldElsewhereWaitsAndServesTheHoldersResult() {
        var m = machine()
        _ = m.start()
        _ = m.diskRead(nil, now: Self.now)
        _ = m.sharedRead(nil, now: Self.now)
        guard case .awaitShared(let previous) = m.claimed(.heldElsewhere, now: Self.now) else { Issue.record("expected awaitShared"); return }
        #expect(previous == nil)
        guard case .finish(let result, let write, let shares) = m.awaited(entry(expiresIn: 60), now: Self.now) else { Issue.record("expected finish"); return }
        #expect(result.source == .shared)
        #expect(write == .store, "written to the local disk cache")
        #expect(shares == .none, "not written back to where it came from")
    }

    /// What a holder stored stale (`no-cache`, `max-age=0`, `s-maxage=0`) may not be reused
    /// without validation, by a waiter either (RFC 9111 §4): it is revalidated with its
    /// validators.
    @Test func aHoldersResultThatIsStaleIsRevalidatedNotServed() {
        for claimStored in [false, true] {
            var m = machine()
            _ = m.start()
            _ = m.diskRead(nil, now: Self.now)
            _ = m.sharedRead(nil, now: Self.now)
            let stored = entry(expiresIn: 0, etag: "\"v9\"")
            let action = claimStored ? m.claimed(.stored(stored), now: Self.now)
                : { _ = m.claimed(.heldElsewhere, now: Self.now); return m.awaited(stored, now: Self.now) }()
            guard case .load(let validators) = action else { Issue.record("expected a revalidation (stored: \(claimStored))"); return }
            #expect(validators?.etag == "\"v9\"")
            guard case .finish(let result, _, _) = m.loaded(Data(), response: response(304), exchange: exchange) else {
                Issue.record("expected the 304 to confirm it"); return
            }
            #expect(result.source == .revalidated)
            #expect(result.revalidatedTier == .shared)
        }
    }

    @Test func aWaitThatEndsEmptyDownloadsItself() {
        var m = machine()
        _ = m.start()
        _ = m.diskRead(nil, now: Self.now)
        _ = m.sharedRead(nil, now: Self.now)
        _ = m.claimed(.heldElsewhere, now: Self.now)
        guard case .load = m.awaited(nil, now: Self.now) else { Issue.record("expected load"); return }
        guard case .finish(_, _, let shares) = m.loaded(Self.png, response: response(200), exchange: exchange) else {
            Issue.record("expected finish"); return
        }
        #expect(shares == .store, "the fallback download is shared too")
    }

    @Test func aStaleSharedEntryIsRevalidatedWithItsValidatorsAndStoredLocally() {
        var m = machine()
        _ = m.start()
        _ = m.diskRead(nil, now: Self.now)
        let stale = entry(expiresIn: -60, etag: "\"fleet\"")
        guard case .claimShared(_) = m.sharedRead(stale, now: Self.now) else { Issue.record("expected claimShared"); return }
        guard case .load(let validators) = m.claimed(.leased(SharedCacheLease(key: "k", token: "t")), now: Self.now) else { Issue.record("expected load"); return }
        #expect(validators?.etag == "\"fleet\"")
        guard case .finish(let result, let write, let shares) = m.loaded(Data(), response: response(304, ["Cache-Control": "max-age=60"]), exchange: exchange) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .revalidated)
        #expect(result.revalidatedTier == .shared, "reported as the tier it came from")
        #expect(result.data == stale.data)
        #expect(write == .store, "the disk had no entry to update: it stores one")
        #expect(shares == .store, "the refreshed freshness goes back to the fleet")
    }

    @Test func aStaleDiskEntryWinsOverAStaleSharedOneAndA304UpdatesBoth() {
        var m = machine()
        _ = m.start()
        let disk = entry(expiresIn: -60, etag: "\"disk\"", byte: 1)
        _ = m.diskRead(disk, now: Self.now)
        _ = m.sharedRead(entry(expiresIn: -60, etag: "\"fleet\"", byte: 2), now: Self.now)
        guard case .load(let validators) = m.claimed(.unavailable, now: Self.now) else { Issue.record("expected load"); return }
        #expect(validators?.etag == "\"disk\"")
        guard case .finish(let result, let write, let shares) = m.loaded(Data(), response: response(304), exchange: exchange) else {
            Issue.record("expected finish"); return
        }
        #expect(result.data == disk.data)
        #expect(write == .updateMetadata)
        #expect(shares == .store)
    }

    @Test func aWaitCarriesTheStaleSharedEntrySoItIsNotMistakenForTheHoldersResult() {
        var m = machine()
        _ = m.start()
        _ = m.diskRead(nil, now: Self.now)
        let stale = entry(expiresIn: -60, etag: "\"old\"")
        _ = m.sharedRead(stale, now: Self.now)
        guard case .awaitShared(let previous) = m.claimed(.heldElsewhere, now: Self.now) else { Issue.record("expected awaitShared"); return }
        #expect(previous == stale)
    }

    @Test func aFreshSharedEntryIsServedWithoutLease() {
        var m = machine()
        _ = m.start()
        _ = m.diskRead(entry(expiresIn: -1), now: Self.now)
        guard case .finish(let result, let write, let shares) = m.sharedRead(entry(expiresIn: 60, byte: 7), now: Self.now) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .shared)
        #expect(result.data.last == 7)
        #expect(write == .store)
        #expect(shares == .none)
    }

    @Test func withoutADiskCacheTheSharedTierIsReadFirst() {
        var m = machine(disk: false)
        guard case .readShared = m.start() else { Issue.record("expected readShared"); return }
    }

    @Test func cacheOnlyReadsTheSharedTierButNeverLeasesOrLoads() {
        var hit = machine(cacheOnly: true)
        _ = hit.start()
        _ = hit.diskRead(nil, now: Self.now)
        guard case .finish(let result, _, _) = hit.sharedRead(entry(expiresIn: -3600), now: Self.now) else { Issue.record("expected finish"); return }
        #expect(result.source == .shared)
        var miss = machine(cacheOnly: true)
        _ = miss.start()
        _ = miss.diskRead(nil, now: Self.now)
        guard case .fail(let error) = miss.sharedRead(nil, now: Self.now) else { Issue.record("expected fail"); return }
        #expect(error as? DataLoadingError == .notCached)
    }

    @Test func aReloadStillSharesWhatItDownloads() {
        var m = machine(readsCaches: false)
        guard case .load = m.start() else { Issue.record("expected load"); return }
        guard case .finish(_, _, let shares) = m.loaded(Self.png, response: response(200), exchange: exchange) else {
            Issue.record("expected finish"); return
        }
        #expect(shares == .store)
    }

    @Test func aStaleSharedEntryStandsInForATransientFailure() {
        var m = machine()
        _ = m.start()
        _ = m.diskRead(nil, now: Self.now)
        _ = m.sharedRead(entry(expiresIn: -60, etag: "\"e\""), now: Self.now)
        _ = m.claimed(.leased(SharedCacheLease(key: "k", token: "t")), now: Self.now)
        guard case .finish(let result, let write, let shares) = m.loadFailed(DataLoadingError.statusCode(503), now: Self.now) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .shared)
        #expect(write == .store, "kept locally (stale), so this host revalidates it next time")
        #expect(shares == .none)
    }

    @Test func transitionsOutOfOrderFailTheFetchInsteadOfCrashing() {
        var m = machine()
        guard case .fail = m.claimed(.leased(SharedCacheLease(key: "k", token: "t")), now: Self.now) else { Issue.record("expected fail"); return }
        var n = machine()
        _ = n.start()
        guard case .fail = n.awaited(nil, now: Self.now) else { Issue.record("expected fail"); return }
    }
}

extension FetchStateMachineSharedTierTests {
    @Test func anEntryStoredJustBeforeTheLeaseIsServedWithoutADownload() {
        var m = machine()
        _ = m.start()
        _ = m.diskRead(nil, now: Self.now)
        guard case .claimShared(let previous) = m.sharedRead(nil, now: Self.now) else { Issue.record("expected claimShared"); return }
        #expect(previous == nil)
        guard case .finish(let result, let write, let shares) = m.claimed(.stored(entry(expiresIn: 60, byte: 9)), now: Self.now) else {
            Issue.record("expected finish"); return
        }
        #expect(result.source == .shared)
        #expect(result.data.last == 9)
        #expect(write == .store)
        #expect(shares == .none)
    }
}
