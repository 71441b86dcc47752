import Foundation
@testable import PictorCore
import PictorTestSupport
import Synchronization
import Testing

/// The shared fleet tier through the pipeline: several pipelines sharing one
/// ``InMemorySharedCache`` stand for several processes sharing one Redis.
@Suite(.timeLimit(.minutes(5)))
struct ImagePipelineSharedTierTests {
    func member(_ fleet: InMemorySharedCache, _ configure: @escaping (inout SharedCachePolicy) -> Void = { _ in }) -> Harness {
        Harness(memoryCache: false) {
            $0.sharedCache = fleet
            configure(&$0.sharedCachePolicy)
        }
    }

    @Test func aDownloadIsSharedAndAnotherMemberIsServedFromTheTierAndStoresItLocally() async throws {
        let fleet = InMemorySharedCache()
        let a = member(fleet), b = member(fleet)
        let url = a.stub()
        b.stub()

        let first = try await a.pipeline.image(for: ImageRequest(url: url))
        let second = try await b.pipeline.image(for: ImageRequest(url: url))

        #expect(first.cacheLayer == .network)
        #expect(second.cacheLayer == .shared)
        #expect(b.network.loadCount == 0)
        #expect(b.disk.keys == [url.absoluteString], "a shared hit is written to the local disk cache")
        #expect(fleet.timeToLive(for: url.absoluteString) == SharedCachePolicy().timeToLive)
        #expect(b.pipeline.statistics.sharedHits == 1)
        #expect(b.pipeline.statistics.sharedCache.hits == 1)
        #expect(a.pipeline.statistics.sharedCache.misses == 2, "read before and after taking the lease")
        #expect(a.pipeline.statistics.sharedCache.stores == 1)
    }

    @Test func whileOneMemberDownloadsTheOthersWaitForItsResult() async throws {
        let fleet = InMemorySharedCache()
        // A wait long enough that a loaded machine never ends it first: the gate does (with the
        // default 5 s, a suite run at a load of 8 saw a follower give up and download).
        let patient: (inout SharedCachePolicy) -> Void = { $0.maximumWait = .seconds(600) }
        let a = member(fleet, patient), b = member(fleet, patient), c = member(fleet, patient)
        let url = a.stub()
        b.stub()
        c.stub()
        let gate = a.network.gate(for: url)
        let leader = Task { try await a.pipeline.image(for: ImageRequest(url: url)) }
        await gate.waitUntil(waiting: 1)
        let followers = [b, c].map { h in Task { try await h.pipeline.image(for: ImageRequest(url: url)) } }
        await until { fleet.count(.isLeased) >= 2 }
        gate.open()

        #expect(try await leader.value.cacheLayer == .network)
        for follower in followers { #expect(try await follower.value.cacheLayer == .shared) }
        #expect(b.network.loadCount + c.network.loadCount == 0, "one download for the fleet")
        #expect(b.pipeline.statistics.sharedCache.waits == 1)
        #expect(a.pipeline.statistics.sharedCache.leasesTaken == 1)
        #expect(try await !fleet.isLeased(url.absoluteString), "the lease is released once the result is shared")
    }

    @Test func aWaitThatEndsWithoutAResultFallsBackToItsOwnDownload() async throws {
        let fleet = InMemorySharedCache()
        let h = member(fleet) { $0.maximumWait = .seconds(30) }
        let url = h.stub()
        // Held far longer than a loaded machine can delay the load's start: a lease that expired
        // first would let the load download at once and never wait.
        fleet.holdLease(for: url.absoluteString, duration: .seconds(600))
        let load = Task { try await h.pipeline.image(for: ImageRequest(url: url)) }
        await until { fleet.count(.isLeased) >= 1 }
        // The holder gives up without storing anything (its download failed).
        fleet.dropLease(for: url.absoluteString)

        #expect(try await load.value.cacheLayer == .network)
        #expect(h.pipeline.statistics.sharedCache.fallbacks == 1)
    }

    @Test func aHolderThatNeverFinishesIsWaitedForOnlyUpToTheBound() async throws {
        let fleet = InMemorySharedCache()
        let h = member(fleet) { $0.maximumWait = .milliseconds(30) }
        let url = h.stub()
        fleet.holdLease(for: url.absoluteString, duration: .seconds(60))

        #expect(try await h.pipeline.image(for: ImageRequest(url: url)).cacheLayer == .network)
        #expect(h.pipeline.statistics.sharedCache.fallbacks == 1)
    }

    @Test func aFailedDownloadReleasesTheLeaseAndSharesNothing() async throws {
        let fleet = InMemorySharedCache()
        let h = member(fleet)
        let url = URL(string: "https://example.test/missing.img")!
        h.network.stub(url, error: .statusCode(404))

        await #expect(throws: ImagePipeline.Error.self) { try await h.pipeline.image(for: ImageRequest(url: url)) }

        await until { fleet.count(.release) == 1 }
        #expect(try await !fleet.isLeased(url.absoluteString))
        #expect(fleet.storedEntry(for: url.absoluteString) == nil)
    }

    @Test func anUnavailableTierNeverFailsALoadAndIsSkippedAfterRepeatedFailures() async throws {
        let fleet = InMemorySharedCache()
        fleet.failure = URLError(.timedOut)
        let h = member(fleet) {
            $0.failureThreshold = 2
            $0.coolDown = .seconds(600)
        }
        for i in 0..<4 {
            let url = h.stub("\(i).img")
            #expect(try await h.pipeline.image(for: ImageRequest(url: url)).cacheLayer == .network)
        }
        let counters = h.pipeline.statistics.sharedCache
        #expect(counters.errors == 2)
        #expect(counters.skips > 0)
        #expect(counters.hits == 0)
        #expect(h.network.loadCount == 4)
        #expect(fleet.count(.read) + fleet.count(.acquire) + fleet.count(.store) == 2, "no calls while cooling down")
    }

    @Test func theBreakerClosesAgainWhenTheTierComesBack() async throws {
        let fleet = InMemorySharedCache()
        fleet.failure = URLError(.cannotConnectToHost)
        let h = member(fleet) {
            $0.failureThreshold = 1
            $0.coolDown = .milliseconds(1)
        }
        _ = try await h.pipeline.image(for: ImageRequest(url: h.stub("1.img")))
        fleet.failure = nil
        try await Task.sleep(for: .milliseconds(5))
        let url = h.stub("2.img")
        _ = try await h.pipeline.image(for: ImageRequest(url: url))
        #expect(fleet.storedEntry(for: url.absoluteString) != nil)
    }

    @Test func entriesOverTheSizeLimitAreNotShared() async throws {
        let fleet = InMemorySharedCache()
        let h = member(fleet) { $0.maximumEntrySize = 8 }
        let url = h.stub()

        _ = try await h.pipeline.image(for: ImageRequest(url: url))

        #expect(fleet.storedEntry(for: url.absoluteString) == nil)
        #expect(h.pipeline.statistics.sharedCache.oversized == 1)
        #expect(h.disk.keys == [url.absoluteString], "still kept locally")
    }

    @Test func sharedBytesThatFailToDecodeAreRemovedFromTheTierAndReplaced() async throws {
        let fleet = InMemorySharedCache()
        let h = member(fleet)
        let url = h.stub()
        let key = url.absoluteString
        fleet.put(DataCacheEntry(data: Data("not an image".utf8), metadata: DataCacheMetadata()), for: key)

        let response = try await h.pipeline.image(for: ImageRequest(url: url))

        #expect(response.cacheLayer == .network)
        #expect(fleet.count(.remove) == 1)
        #expect(fleet.storedEntry(for: key)?.data == TestImageCodec.encode(width: 64, height: 48))
    }

    @Test func aFreshDiskEntryNeverAsksTheTier() async throws {
        let fleet = InMemorySharedCache()
        let h = member(fleet)
        let url = h.stub()
        _ = try await h.pipeline.image(for: ImageRequest(url: url))
        let reads = fleet.count(.read)

        #expect(try await h.pipeline.image(for: ImageRequest(url: url)).cacheLayer == .disk)
        #expect(fleet.count(.read) == reads)
    }

    @Test func cacheOnlyRequestsAreServedByTheTierButNeverDownload() async throws {
        let fleet = InMemorySharedCache()
        let a = member(fleet), b = member(fleet)
        let url = a.stub()
        b.stub()
        await #expect(throws: ImagePipeline.Error.self) { try await b.pipeline.image(for: ImageRequest(url: url, options: .cacheOnly)) }
        _ = try await a.pipeline.image(for: ImageRequest(url: url))

        #expect(try await b.pipeline.image(for: ImageRequest(url: url, options: .cacheOnly)).cacheLayer == .shared)
        #expect(b.network.loadCount == 0)
        #expect(fleet.count(.acquire) == 1, "only the downloading member took a lease")
    }
}

extension ImagePipelineSharedTierTests {
    @Test func anEntryStoredBetweenTheMissAndTheLeaseIsServedNotDownloadedAgain() async throws {
        let fleet = RacingSharedCache()
        let h = Harness(memoryCache: false) { $0.sharedCache = fleet }
        let url = h.stub()
        // Another process stores the entry and drops its lease right after this one's miss.
        fleet.afterFirstMiss = DataCacheEntry(data: TestImageCodec.encode(width: 64, height: 48), metadata: DataCacheMetadata())

        #expect(try await h.pipeline.image(for: ImageRequest(url: url)).cacheLayer == .shared)
        #expect(h.network.loadCount == 0)
        #expect(fleet.inner.count(.release) == 1, "the lease taken is given back")
    }
}

/// Stores an entry right after the first miss, as another process finishing its download would.
final class RacingSharedCache: SharedDataCache, Sendable {
    let inner = InMemorySharedCache()
    private let pending = Mutex<DataCacheEntry?>(nil)
    var afterFirstMiss: DataCacheEntry? {
        get { pending.withLock { $0 } }
        set { pending.withLock { $0 = newValue } }
    }

    func entry(for key: String) async throws -> DataCacheEntry? {
        let found = try await inner.entry(for: key)
        if found == nil, let racing = pending.withLock({ p -> DataCacheEntry? in defer { p = nil }; return p }) {
            inner.put(racing, for: key)
        }
        return found
    }
    func store(_ entry: DataCacheEntry, for key: String, timeToLive: Duration) async throws {
        try await inner.store(entry, for: key, timeToLive: timeToLive)
    }
    func removeEntry(for key: String) async throws { try await inner.removeEntry(for: key) }
    func acquireLease(for key: String, duration: Duration) async throws -> SharedCacheLease? {
        try await inner.acquireLease(for: key, duration: duration)
    }
    func isLeased(_ key: String) async throws -> Bool { try await inner.isLeased(key) }
    func releaseLease(_ lease: SharedCacheLease) async throws { try await inner.releaseLease(lease) }
}

extension ImagePipelineSharedTierTests {
    @Test func localFilesNeverTouchTheTier() async throws {
        let fleet = InMemorySharedCache()
        let h = member(fleet)
        let file = URL(fileURLWithPath: "/tmp/pictor-local.img")
        h.network.stub(file, data: TestImageCodec.encode(width: 8, height: 8))

        _ = try await h.pipeline.image(for: ImageRequest(url: file))

        #expect(fleet.count(.read) + fleet.count(.acquire) + fleet.count(.store) == 0)
    }
}

extension ImagePipelineSharedTierTests {
    @Test func bytesThatNeverDecodeAreKeptNowhere() async throws {
        let fleet = InMemorySharedCache()
        let h = member(fleet)
        let url = URL(string: "https://example.test/broken.img")!
        h.network.stub(url, data: Data("not an image at all".utf8))
        fleet.put(DataCacheEntry(data: Data("not an image either".utf8), metadata: DataCacheMetadata()), for: url.absoluteString)

        await #expect(throws: ImagePipeline.Error.self) { try await h.pipeline.image(for: ImageRequest(url: url)) }

        #expect(fleet.storedEntry(for: url.absoluteString) == nil, "neither the shared copy nor the fresh download")
        #expect(h.disk.keys.isEmpty)
    }

    // The fleet's counters (`pictor cache stats --shared-cache`) come from the pipeline itself:
    // an app that never calls anything still adds to them.

    @Test func thePipelineRecordsItsFleetCountersWithoutBeingAsked() async throws {
        let fleet = InMemorySharedCache()
        let h = member(fleet)
        let url = h.stub()
        _ = try await h.pipeline.image(for: ImageRequest(url: url))
        // The first shared-tier operation records at once, in the background.
        await until { fleet.count(.record) >= 1 }
        #expect(fleet.fleetStatistics.misses >= 1)
        await h.pipeline.recordSharedCacheStatistics()
        #expect(fleet.fleetStatistics == h.pipeline.statistics.sharedCache, "every counter, each once")
    }

    @Test func withoutAnIntervalOnlyAnExplicitCallRecords() async throws {
        let fleet = InMemorySharedCache()
        let h = member(fleet) { $0.statisticsInterval = nil }
        let url = h.stub()
        _ = try await h.pipeline.image(for: ImageRequest(url: url))
        #expect(fleet.count(.record) == 0)
        await h.pipeline.recordSharedCacheStatistics()
        #expect(fleet.count(.record) == 1)
        #expect(fleet.fleetStatistics == h.pipeline.statistics.sharedCache)
        await h.pipeline.recordSharedCacheStatistics()
        #expect(fleet.count(.record) == 1, "nothing new: nothing sent")
    }

    @Test func countersARecordFailedToSendGoWithTheNextOne() async throws {
        let fleet = InMemorySharedCache()
        let h = member(fleet) { $0.statisticsInterval = nil }
        let url = h.stub()
        _ = try await h.pipeline.image(for: ImageRequest(url: url))
        fleet.failure = URLError(.timedOut)
        await h.pipeline.recordSharedCacheStatistics()
        #expect(fleet.fleetStatistics == SharedCacheStatistics())
        fleet.failure = nil
        await h.pipeline.recordSharedCacheStatistics()
        #expect(fleet.fleetStatistics == h.pipeline.statistics.sharedCache, "owed, then sent once")
    }
}
