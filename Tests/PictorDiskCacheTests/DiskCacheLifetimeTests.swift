import Dispatch
import Synchronization
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

/// Recovery when the directory is not this instance's alone at opening: another process using
/// the cache, or only a child process that some thread of this one is starting (between `fork`
/// and `exec` the child holds a copy of every descriptor, the lock's too).
@Suite(.timeLimit(.minutes(2)))
struct DiskCacheSharedOpenRecoveryTests {
    let directory = TestDirectory()
    let log = LogRecorder()

    func open(_ configure: (inout DiskCache.Configuration) -> Void = { _ in }) throws -> DiskCache {
        var c = DiskCache.Configuration.test(directory, log: log)
        configure(&c)
        return try DiskCache(configuration: c)
    }

    func populate() throws {
        let cache = try open()
        for i in 0..<3 { cache.store(testBytes(500, seed: UInt64(i)), for: "k\(i)") }
        cache.flush()
    }

    @Test func aLostIndexIsRebuiltFromTheFilesWhileAnotherProcessHasTheDirectoryOpen() throws {
        try populate()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory.path + "/index.sqlite" + suffix) }
        // Given another user of the directory (a shared lock on another descriptor)
        let other = try DirectoryLock(directory: directory.path)
        other.share()
        // When the cache opens
        let cache = try open()
        // Then the entry files are adopted at once: adoption only adds rows, safe beside others
        #expect(cache.count == 3)
        #expect(cache.data(for: "k1") == testBytes(500, seed: 1))
        withExtendedLifetime(other) {}
    }

    @Test func interruptedWritesAreReplayedOnceABriefHolderOfTheDirectoryLetsGo() throws {
        try populate()
        do {
            let index = try EntryIndex(path: directory.path + "/index.sqlite", synchronousFull: false)
            try index.connection.transaction { () throws(SQLiteError) in try index.clearAllIntoIntents() }
        }
        // Given a descriptor of the lock held elsewhere, let go after the first refused attempt
        let holder = Mutex<DirectoryLock?>(try DirectoryLock(directory: directory.path))
        holder.withLock { $0?.share() }
        let cache = try open { c in
            c.exclusiveRetry = .init(attempts: 50, interval: .milliseconds(5)) { _ in holder.withLock { $0 = nil } }
        }
        // Then recovery ran: the clear was finished
        #expect(cache.count == 0)
        #expect(directory.entryFileNames().isEmpty)
    }

    @Test func anotherProcessThatStaysOnlyDelaysReplayUntilALaterOpen() throws {
        try populate()
        do {
            let index = try EntryIndex(path: directory.path + "/index.sqlite", synchronousFull: false)
            try index.connection.transaction { () throws(SQLiteError) in try index.clearAllIntoIntents() }
        }
        var other: DirectoryLock? = try DirectoryLock(directory: directory.path)
        other?.share()
        let refusals = Mutex(0)
        do {
            let cache = try open { c in
                c.exclusiveRetry = .init(attempts: 3, interval: .milliseconds(1)) { _ in refusals.withLock { $0 += 1 } }
            }
            // Replay needs the directory alone: the intents wait (their entries read as misses)
            #expect(cache.count == 0)
            #expect(directory.entryFileNames().count == 3)
        }
        #expect(refusals.withLock { $0 } == 3)
        // And the next open that has the directory alone finishes the clear
        other = nil
        #expect(try open().count == 0)
        #expect(directory.entryFileNames().isEmpty)
    }
}
