import Foundation
import PictorCore
import Testing
@testable import PictorDiskCache

/// `DiskCache.recordedSize(in:)`: the total an index records, read before the cache is opened.
@Suite(.timeLimit(.minutes(5)))
struct DiskCacheRecordedSizeTests {
    let directory = TestDirectory()

    @Test func itIsTheTotalSizeTheOpenedCacheReports() throws {
        #expect(DiskCache.recordedSize(in: directory.url) == nil, "no directory yet")
        let cache = try DiskCache(configuration: .test(directory))
        #expect(DiskCache.recordedSize(in: directory.url) == 0)
        for i in 0..<3 { cache.store(testBytes(1_000 + i), for: "k\(i)") }
        cache.flush()
        #expect(cache.totalSize > 3_000)
        #expect(DiskCache.recordedSize(in: directory.url) == cache.totalSize, "read while the cache is open")
        // A trailing slash names the same directory.
        #expect(DiskCache.recordedSize(in: URL(fileURLWithPath: directory.path + "/")) == cache.totalSize)
    }

    @Test func aDirectoryWithoutAReadableIndexHasNone() throws {
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        #expect(DiskCache.recordedSize(in: directory.url) == nil)
        try Data("not an SQLite database".utf8).write(to: directory.url.appendingPathComponent("index.sqlite"))
        #expect(DiskCache.recordedSize(in: directory.url) == nil)
    }
}
