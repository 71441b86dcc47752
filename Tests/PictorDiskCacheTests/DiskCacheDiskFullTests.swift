import Foundation
import PictorCore
import Testing
@testable import PictorDiskCache

/// A full file system, injected where the cache writes (`DiskCache.DiskFull`:
/// SQLite's own `SQLITE_FULL` through its page limit, `ENOSPC` from entry file writes), so the
/// behaviour is tested on every machine; `DiskCacheFaultTests` does the same on a real tmpfs
/// where the tests run as root.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct DiskCacheDiskFullTests {
    let log = LogRecorder()

    @Test func aNewCacheOnAFullDiskOpensReadOnlyWithOneWarning() throws {
        let directory = TestDirectory()
        var c = DiskCache.Configuration.test(directory, log: log)
        c.diskFull.indexPageLimit = 1
        let cache = try DiskCache(configuration: c)
        #expect(cache.isEnabled)
        #expect(cache.isReadOnly)
        #expect(log.warnings.count == 1)
        #expect(log.warnings.first?.contains("full") == true, "\(log.warnings)")
        for i in 0..<5 { cache.store(Data("x".utf8), for: "k\(i)") }
        cache.flush()
        #expect(cache.data(for: "k0") == nil)
        #expect(cache.count == 0)
        #expect(cache.entries(limit: 10).isEmpty)
        #expect(cache.verify().corrupt == 0)
        #expect(log.warnings.count == 1)
    }

    @Test func aFullCacheServesWhatItHoldsAndWarnsOnceForEveryFailedWrite() throws {
        let directory = TestDirectory()
        do {
            let cache = try DiskCache(configuration: .test(directory))
            cache.store(Data("held".utf8), for: "held")
            cache.flush()
        }
        for full in [DiskCache.DiskFull(fileWriteErrno: ENOSPC), .init(indexPageLimit: 1)] {
            let log = LogRecorder()
            var c = DiskCache.Configuration.test(directory, log: log)
            c.diskFull = full
            let cache = try DiskCache(configuration: c)
            #expect(cache.isEnabled)
            #expect(cache.data(for: "held") == Data("held".utf8), "\(full)")
            // Enough rows that the index must grow past the pages it has.
            for i in 0..<400 { cache.store(testBytes(100, seed: UInt64(i)), for: "new\(i)") }
            cache.flush()
            let stats = cache.statistics
            #expect(stats.writeFailures > 0, "\(full)")
            #expect(stats.writes + stats.writeFailures == 400, "\(full)")
            #expect(log.warnings.count == 1, "\(full): \(log.warnings)")
            #expect(log.warnings.first.map { $0.contains("full") || $0.contains("No space") } == true, "\(full): \(log.warnings)")
            #expect(cache.count == 1 + stats.writes)
            #expect(cache.entries().count == 1 + stats.writes)
            #expect(cache.verify().corrupt == 0)
            for i in 0..<400 {
                if let data = cache.data(for: "new\(i)") { #expect(data == testBytes(100, seed: UInt64(i))) }
            }
            #expect(cache.data(for: "held") == Data("held".utf8))
        }
    }

    @Test func anIOErrorCausedByAFullDiskIsFull() {
        #expect(SQLiteError(operation: "step", code: 10, message: "disk I/O error", systemErrno: ENOSPC).isFull)
        #expect(SQLiteError(operation: "step", code: 10 | (13 << 8), message: "disk I/O error", systemErrno: EDQUOT).isFull)
        #expect(!SQLiteError(operation: "step", code: 10, message: "disk I/O error", systemErrno: EIO).isFull)
        #expect(SQLiteError(operation: "step", code: 13, message: "database or disk is full").isFull)
    }
}
