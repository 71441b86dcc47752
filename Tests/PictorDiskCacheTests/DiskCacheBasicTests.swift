import Foundation
import PictorCore
import PictorCrypto
import Testing
@testable import PictorDiskCache

@Suite(.timeLimit(.minutes(5)))
struct DiskCacheBasicTests {
    let directory = TestDirectory()

    @Test func storedBytesReadBackAfterFlushAndAfterReopen() throws {
        // Given a cache with one entry
        let cache = try DiskCache(configuration: .test(directory))
        let bytes = testBytes(50_000)
        cache.store(bytes, for: "https://example.org/a.jpg")
        // Then it reads back before and after the write lands, and from a new instance
        #expect(cache.data(for: "https://example.org/a.jpg") == bytes)
        cache.flush()
        #expect(cache.data(for: "https://example.org/a.jpg") == bytes)
        let reopened = try DiskCache(configuration: .test(directory))
        #expect(reopened.data(for: "https://example.org/a.jpg") == bytes)
        #expect(reopened.count == 1)
        #expect(reopened.totalSize == onDiskSize(50_000))
    }

    @Test func theIndexIsOwnerOnlyLikeTheEntries() throws {
        // A newcomer found index.sqlite at 0644 while entries are 0600.
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(testBytes(100), for: "k")
        cache.flush()
        var info = stat()
        #expect(stat(directory.url.appendingPathComponent("index.sqlite").path, &info) == 0)
        #expect(info.st_mode & 0o077 == 0, "index.sqlite mode \(String(info.st_mode & 0o777, radix: 8))")
    }

    @Test func pendingWriteIsReadableAtOnce() throws {
        // Given a store whose writer has not run (the queue is held)
        let cache = try DiskCache(configuration: .test(directory))
        let gate = DispatchSemaphore(value: 0)
        cache.queue.async { gate.wait() }
        cache.store(Data("abc".utf8), for: "k")
        // Then the entry is visible before anything is on disk
        #expect(cache.data(for: "k") == Data("abc".utf8))
        #expect(cache.contains("k"))
        #expect(directory.entryFileNames().isEmpty)
        cache.removeData(for: "k")
        #expect(cache.data(for: "k") == nil)
        gate.signal()
        cache.flush()
        #expect(cache.data(for: "k") == nil)
    }

    @Test func metadataRoundTripsAndUpdates() throws {
        let cache = try DiskCache(configuration: .test(directory))
        let expiry = Date(timeIntervalSince1970: 1_900_000_000)
        let metadata = DataCacheMetadata(etag: "\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT",
                                         cacheControl: "max-age=60", expiresAt: expiry, format: .png,
                                         userInfo: Data([1, 2, 3]))
        cache.store(Data([0x89, 0x50]), for: "k", metadata: metadata)
        cache.flush()
        #expect(try DiskCache(configuration: .test(directory)).entry(for: "k")?.metadata == metadata)

        // When the metadata is replaced (an HTTP 304)
        var updated = metadata
        updated.etag = "\"v2\""
        updated.userInfo = nil
        cache.updateMetadata(updated, for: "k")
        #expect(cache.entry(for: "k")?.metadata == updated)
        cache.flush()
        #expect(try DiskCache(configuration: .test(directory)).entry(for: "k") == DataCacheEntry(data: Data([0x89, 0x50]), metadata: updated))
        // And an update of a missing entry does nothing
        cache.updateMetadata(updated, for: "missing")
        cache.flush()
        #expect(cache.entry(for: "missing") == nil)
    }

    @Test func replacingAnEntryKeepsOneFileAndTheNewBytes() throws {
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(testBytes(1000, seed: 1), for: "k")
        cache.flush()
        cache.store(testBytes(300, seed: 2), for: "k")
        cache.flush()
        #expect(cache.data(for: "k") == testBytes(300, seed: 2))
        #expect(cache.count == 1)
        #expect(cache.totalSize == onDiskSize(300))
        #expect(directory.entryFileNames().count == 1)
    }

    @Test func removeDataDeletesFileAndRow() throws {
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(Data("x".utf8), for: "a")
        cache.store(Data("y".utf8), for: "b")
        cache.flush()
        cache.removeData(for: "a")
        #expect(!cache.contains("a"))
        cache.flush()
        #expect(cache.count == 1)
        #expect(directory.entryFileNames() == [SHA256.hexDigest("b")])
    }

    @Test func removeAllIsImmediateAndSurvivesARestart() throws {
        let cache = try DiskCache(configuration: .test(directory))
        for i in 0..<20 { cache.store(testBytes(100, seed: UInt64(i)), for: "k\(i)") }
        cache.flush()
        cache.store(Data("late".utf8), for: "pending")
        cache.removeAll()
        cache.store(Data("after".utf8), for: "after")
        // Then nothing staged before the clear is visible, and what came after is
        #expect(cache.data(for: "k3") == nil)
        #expect(cache.data(for: "pending") == nil)
        #expect(cache.data(for: "after") == Data("after".utf8))
        cache.flush()
        let reopened = try DiskCache(configuration: .test(directory))
        #expect(reopened.count == 1)
        #expect(reopened.data(for: "k3") == nil)
        #expect(directory.entryFileNames() == [SHA256.hexDigest("after")])
    }

    @Test func containsDoesNotCountAsARead() throws {
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(Data("x".utf8), for: "a")
        cache.flush()
        #expect(cache.contains("a"))
        #expect(!cache.contains("b"))
        #expect(cache.statistics.hits == 0 && cache.statistics.misses == 0)
    }

    @Test func statisticsCountHitsMissesAndBytes() throws {
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(testBytes(1_000), for: "a")
        cache.flush()
        _ = cache.data(for: "a")
        _ = cache.data(for: "a")
        _ = cache.data(for: "b")
        let stats = cache.statistics
        #expect(stats.hits == 2)
        #expect(stats.misses == 1)
        #expect(stats.bytesRead == 2_000)
        #expect(stats.bytesWritten == onDiskSize(1_000))
        #expect(stats.writes == 1)
        #expect(stats.writeFailures == 0)
    }

    static let keys: [String: String] = [
        "10 kB URL": String(repeating: "https://example.org/a-very-long-path/", count: 280),
        "Chinese": "https://例子.测试/图片/猫.jpg?名字=值",
        "Cyrillic": "https://пример.испытание/картинка.png",
        "emoji, NUL, newline": "🖼️ emoji key with \u{0} NUL and\nnewline",
        "empty": "",
    ]

    @Test(arguments: keys.keys.sorted())
    func keysOfAnyLengthAndScriptWork(kind: String) throws {
        let key = try #require(Self.keys[kind])
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(Data(key.utf8) + Data([7]), for: key)
        cache.flush()
        let reopened = try DiskCache(configuration: .test(directory))
        #expect(reopened.data(for: key) == Data(key.utf8) + Data([7]))
        #expect(directory.entryFileNames() == [SHA256.hexDigest(key)])
    }

    @Test func emptyDataIsAnEntry() throws {
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(Data(), for: "empty")
        cache.flush()
        #expect(try DiskCache(configuration: .test(directory)).data(for: "empty") == Data())
    }

    @Test func neitherFilesNorIndexContainTheKey() throws {
        let cache = try DiskCache(configuration: .test(directory))
        let url = "https://secret-host.example/private/photo.jpg"
        cache.store(Data("payload".utf8), for: url, metadata: DataCacheMetadata(etag: "e"))
        cache.flush()
        // Then no file name and no file (index, WAL included) holds the URL or its host
        for name in try FileManager.default.subpathsOfDirectory(atPath: directory.path) {
            #expect(!name.contains("secret-host"))
            let contents = fileContents(atPath: directory.path + "/" + name) ?? Data()
            #expect(contents.range(of: Data("secret-host".utf8)) == nil, "found in \(name)")
        }
    }

    @Test func entriesListDigestsSizesAndFormatsLeastRecentFirst() throws {
        let clock = TestClock()
        let cache = try DiskCache(configuration: .test(directory, clock: clock))
        cache.store(Data([0xFF, 0xD8, 0xFF]), for: "a", metadata: DataCacheMetadata(format: .jpeg))
        cache.flush()
        clock.advance(10)
        cache.store(Data("bb".utf8), for: "b")
        let list = cache.entries()
        #expect(list.map(\.digest) == [SHA256.hexDigest("a"), SHA256.hexDigest("b")])
        #expect(list.map(\.size) == [onDiskSize(3, format: .jpeg), onDiskSize(2)])
        #expect(list.first?.format == .jpeg)
        #expect(list.last?.created == Date(timeIntervalSince1970: clock.now))
        #expect(cache.entries(limit: 1).map(\.digest) == [SHA256.hexDigest("a")])
    }

    @Test func invalidConfigurationsThrow() {
        var c = DiskCache.Configuration.test(directory)
        c.trimRatio = 1.5
        #expect(throws: DiskCacheError.invalidConfiguration("trimRatio must be in 0...1")) { try DiskCache(configuration: c) }
        c = .test(directory)
        c.sizeLimit = -1
        #expect(throws: DiskCacheError.self) { try DiskCache(configuration: c) }
    }

    @Test func aFileInPlaceOfTheDirectoryThrows() throws {
        _ = FileManager.default.createFile(atPath: directory.path, contents: Data("x".utf8))
        #expect(throws: DiskCacheError.directoryUnavailable(path: directory.path, errno: ENOTDIR)) {
            try DiskCache(configuration: .test(directory))
        }
    }
}

/// A hasher that breaks the ``CacheKeyHashing`` contract.
struct PathHashing: CacheKeyHashing {
    func digest(for key: String) -> String { "../escape" }
}

@Suite(.timeLimit(.minutes(5)))
struct DiskCacheKeyHashingContractTests {
    let directory = TestDirectory()

    @Test func aHasherReturningAPathIsIgnoredNotFollowed() throws {
        let log = LogRecorder()
        var c = DiskCache.Configuration.test(directory, log: log)
        c.keyHashing = PathHashing()
        let cache = try DiskCache(configuration: c)
        cache.store(Data("x".utf8), for: "k")
        cache.flush()
        #expect(cache.data(for: "k") == nil)
        #expect(!cache.contains("k"))
        #expect(!FileManager.default.fileExists(atPath: directory.url.deletingLastPathComponent().appendingPathComponent("escape").path))
        #expect(log.messages.contains { $0.0 == .error })
    }
}
