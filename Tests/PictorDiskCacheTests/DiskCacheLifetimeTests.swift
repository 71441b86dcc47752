import Dispatch
import Foundation
import PictorCore
import Testing
@testable import PictorDiskCache

/// What happens when the last reference to a cache goes: its staged writes reach the disk and
/// the directory is released at once, so that an instance opened next in this process (or
/// another process) can run crash recovery, which needs the directory to itself.
@Suite(.timeLimit(.minutes(2)))
struct DiskCacheLifetimeTests {
    let directory = TestDirectory()
    let log = LogRecorder()

    func open() throws -> DiskCache { try DiskCache(configuration: .test(directory, log: log)) }

    @Test func droppingTheLastReferenceWritesWhatWasStagedAndReleasesTheDirectory() throws {
        var cache: DiskCache? = try open()
        let queue = cache!.queue
        // Given a write whose background drain has not run yet (the writer queue is held)
        let hold = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        queue.async { held.signal(); hold.wait() }
        held.wait()
        cache!.store(testBytes(700, seed: 7), for: "k")
        // When the caller lets go of the cache
        cache = nil
        // Then nothing else keeps it alive: the directory can be locked exclusively at once
        let exclusive = try DirectoryLock(directory: directory.path).tryExclusive()
        hold.signal()
        #expect(exclusive)
        // And the staged write was not lost
        queue.sync {}
        #expect(try open().data(for: "k") == testBytes(700, seed: 7))
    }

    @Test func aSweepPendingOnTheQueueDoesNotKeepTheCacheAlive() throws {
        var cache: DiskCache? = try open()
        let queue = cache!.queue
        let hold = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        queue.async { held.signal(); hold.wait() }
        held.wait()
        cache!.removeAll()
        cache = nil
        let exclusive = try DirectoryLock(directory: directory.path).tryExclusive()
        hold.signal()
        queue.sync {}
        #expect(exclusive)
    }
}
