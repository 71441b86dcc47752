import Foundation
import PictorCore
import PictorCrypto
import Testing
@testable import PictorDiskCache

/// Invalidating a source removes what was made from it (variants, encoded results); pinned
/// entries survive the size and age limits while still counting against the size limit.
@Suite(.timeLimit(.minutes(5)))
struct DiskCacheSourcesAndPinsTests {
    let directory = TestDirectory()

    func column(_ name: String) throws -> [String: String?] {
        let connection = try SQLiteConnection(path: directory.path + "/index.sqlite")
        let statement = try connection.statement("SELECT digest, \(name) FROM entries")
        defer { statement.finish() }
        var out: [String: String?] = [:]
        while try statement.step() { out[statement.text(0) ?? ""] = statement.text(1) }
        return out
    }

    // MARK: Sources and variants

    @Test func removingASourceRemovesItsVariantsAndKeepsAnotherSources() throws {
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(testBytes(100), for: "src", metadata: DataCacheMetadata())
        cache.store(testBytes(50, seed: 2), for: "src|thumb", metadata: DataCacheMetadata(), source: "src")
        cache.store(testBytes(50, seed: 3), for: "src|encoded:webp", metadata: DataCacheMetadata(), source: "src")
        cache.store(testBytes(100, seed: 4), for: "other", metadata: DataCacheMetadata())
        cache.store(testBytes(50, seed: 5), for: "other|thumb", metadata: DataCacheMetadata(), source: "other")
        cache.flush()

        #expect(cache.removeEntry(for: "src") == 3)
        for key in ["src", "src|thumb", "src|encoded:webp"] { #expect(!cache.contains(key), "\(key)") }
        #expect(cache.contains("other") && cache.contains("other|thumb"))
        #expect(cache.count == 2)
        #expect(directory.entryFileNames() == [SHA256.hexDigest("other"), SHA256.hexDigest("other|thumb")])
    }

    @Test func theIndexRecordsTheSourceDigestNeverTheKey() throws {
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(testBytes(10), for: "https://example.org/a.jpg", metadata: DataCacheMetadata())
        cache.store(testBytes(10), for: "https://example.org/a.jpg|thumb", metadata: DataCacheMetadata(), source: "https://example.org/a.jpg")
        cache.flush()
        let sources = try column("source")
        #expect(sources[SHA256.hexDigest("https://example.org/a.jpg|thumb")] == .some(SHA256.hexDigest("https://example.org/a.jpg")))
        #expect(sources[SHA256.hexDigest("https://example.org/a.jpg")] == .some(nil))
    }

    @Test func anEncryptedIndexRecordsTheKeyedSourceName() throws {
        let cache = try DiskCache(configuration: EncryptedFixtures.configuration(directory))
        cache.store(testBytes(10), for: "a", metadata: DataCacheMetadata())
        cache.store(testBytes(10), for: "a|thumb", metadata: DataCacheMetadata(), source: "a")
        cache.flush()
        let names = directory.entryFileNames()
        let sources = try column("source").values.compactMap { $0 }
        #expect(sources.count == 1 && names.contains(sources[0]), "the source's own (keyed) file name")
        #expect(!sources.contains(SHA256.hexDigest("a")))
        #expect(cache.removeEntry(for: "a") == 2)
        #expect(directory.entryFileNames().isEmpty)
    }

    @Test func originalOnlyKeepsTheVariants() throws {
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(testBytes(100), for: "src", metadata: DataCacheMetadata())
        cache.store(testBytes(50), for: "src|thumb", metadata: DataCacheMetadata(), source: "src")
        #expect(cache.removeEntry(for: "src", includingVariants: false) == 1)
        #expect(!cache.contains("src"))
        #expect(cache.contains("src|thumb"))
    }

    @Test func variantsStillStagedAreRemovedToo() throws {
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(testBytes(100), for: "src", metadata: DataCacheMetadata())
        cache.store(testBytes(50), for: "src|thumb", metadata: DataCacheMetadata(), source: "src")
        // No flush: both are only staged when the removal is asked for.
        #expect(cache.removeEntry(for: "src") == 2)
        #expect(!cache.contains("src|thumb"))
        #expect(cache.count == 0)
    }

    @Test func aMetadataUpdateKeepsTheVariantsSource() throws {
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(testBytes(100), for: "src", metadata: DataCacheMetadata())
        cache.store(testBytes(50), for: "src|thumb", metadata: DataCacheMetadata(), source: "src")
        cache.flush()
        cache.updateMetadata(DataCacheMetadata(etag: "\"v2\""), for: "src|thumb")
        cache.flush()
        #expect(cache.removeEntry(for: "src") == 2)
        #expect(!cache.contains("src|thumb"))
    }

    @Test func removingAnAbsentSourceRemovesNothing() throws {
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(testBytes(10), for: "b", metadata: DataCacheMetadata())
        #expect(cache.removeEntry(for: "a") == 0)
        #expect(cache.count == 1)
    }

    @Test func aRemovalInterruptedAfterItsIntentsIsFinishedOnOpen() throws {
        do {
            let cache = try DiskCache(configuration: .test(directory))
            cache.store(testBytes(100), for: "src", metadata: DataCacheMetadata())
            cache.store(testBytes(50), for: "src|thumb", metadata: DataCacheMetadata(), source: "src")
            cache.flush()
        }
        // As a crash after the removal's intents were committed leaves it: rows and files
        // still there, intents recorded.
        let connection = try SQLiteConnection(path: directory.path + "/index.sqlite")
        try connection.execute("INSERT INTO intents(digest) SELECT digest FROM entries")
        let cache = try DiskCache(configuration: .test(directory))
        #expect(cache.count == 0)
        #expect(directory.entryFileNames().isEmpty)
    }

    // MARK: Pins

    @Test func aPinnedEntrySurvivesTheSizeTrimAndItsBytesCount() throws {
        var configuration = DiskCache.Configuration.test(directory)
        configuration.sizeLimit = onDiskSize(1_000) * 3
        configuration.trimRatio = 1
        let clock = TestClock()
        configuration.now = { clock.now }
        let cache = try DiskCache(configuration: configuration)
        // Flushed before the clock moves: a write's access time is read when the writer queue
        // lands it, and a drain that ran after the advance would give an entry its successor's
        // time; the tie would let the trim evict either.
        cache.store(testBytes(1_000, seed: 1), for: "pinned", metadata: DataCacheMetadata())
        cache.flush()
        clock.advance(10)
        try cache.pin("pinned")
        for i in 2...5 {
            cache.store(testBytes(1_000, seed: UInt64(i)), for: "e\(i)", metadata: DataCacheMetadata())
            cache.flush()
            clock.advance(10)
        }
        cache.trim()
        // The limit holds three; the pinned one is the oldest yet stays, so only two others fit.
        #expect(cache.contains("pinned"))
        #expect(cache.count == 3)
        #expect(cache.contains("e4") && cache.contains("e5"))
        #expect(cache.pinnedCount == 1)
        #expect(cache.pinnedSize == onDiskSize(1_000))
        #expect(cache.totalSize <= configuration.sizeLimit)
    }

    @Test func aPinnedEntrySurvivesTheAgeLimit() throws {
        let clock = TestClock()
        var configuration = DiskCache.Configuration.test(directory, clock: clock)
        configuration.maxAge = 100
        let cache = try DiskCache(configuration: configuration)
        cache.store(testBytes(10), for: "kept", metadata: DataCacheMetadata())
        cache.store(testBytes(10), for: "aged", metadata: DataCacheMetadata())
        cache.flush()
        try cache.pin("kept")
        clock.advance(1_000)
        #expect(cache.removeExpired() == 1)
        #expect(cache.contains("kept") && !cache.contains("aged"))
    }

    @Test func pinsSurviveReopeningAndAnAgeSweepAtOpen() throws {
        let clock = TestClock()
        var configuration = DiskCache.Configuration.test(directory, clock: clock)
        configuration.maxAge = 100
        configuration.sweepInterval = 3_600
        do {
            let cache = try DiskCache(configuration: configuration)
            cache.store(testBytes(10), for: "kept", metadata: DataCacheMetadata())
            cache.flush()
            try cache.pin("kept")
        }
        clock.advance(1_000)
        let cache = try DiskCache(configuration: configuration)
        #expect(cache.contains("kept"))
        #expect(cache.pinnedCount == 1)
    }

    @Test func unpinnedEntriesAreEvictedAgain() throws {
        let clock = TestClock()
        var configuration = DiskCache.Configuration.test(directory, clock: clock)
        configuration.maxAge = 100
        let cache = try DiskCache(configuration: configuration)
        cache.store(testBytes(10), for: "a", metadata: DataCacheMetadata())
        cache.flush()
        try cache.pin("a")
        try cache.unpin("a")
        #expect(cache.pinnedCount == 0)
        clock.advance(1_000)
        #expect(cache.removeExpired() == 1)
    }

    @Test func pinningAKeyWithNoEntryThrows() throws {
        let cache = try DiskCache(configuration: .test(directory))
        #expect(throws: DiskCacheError.noEntry) { try cache.pin("absent") }
        #expect(throws: DiskCacheError.noEntry) { try cache.unpin("absent") }
        #expect(!DiskCacheError.noEntry.description.contains("absent"))
    }

    @Test func aStagedEntryCanBePinned() throws {
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(testBytes(10), for: "a", metadata: DataCacheMetadata())
        try cache.pin("a")
        #expect(cache.pinnedCount == 1)
    }

    @Test func pinnedBytesAloneOverTheLimitAreKeptWithOneWarning() throws {
        do {
            let cache = try DiskCache(configuration: .test(directory))
            cache.store(testBytes(1_000, seed: 1), for: "p1", metadata: DataCacheMetadata())
            cache.store(testBytes(1_000, seed: 2), for: "p2", metadata: DataCacheMetadata())
            try cache.pin("p1")
            try cache.pin("p2")
        }
        // Reopened with a limit lowered below what is pinned.
        let log = LogRecorder()
        var configuration = DiskCache.Configuration.test(directory, log: log)
        configuration.sizeLimit = onDiskSize(1_000) + 10
        let cache = try DiskCache(configuration: configuration)
        cache.store(testBytes(1_000, seed: 3), for: "x", metadata: DataCacheMetadata())
        cache.flush()
        cache.trim()
        cache.store(testBytes(1_000, seed: 4), for: "y", metadata: DataCacheMetadata())
        cache.flush()
        cache.trim()
        #expect(cache.contains("p1") && cache.contains("p2"))
        #expect(!cache.contains("x") && !cache.contains("y"))
        #expect(log.warnings.filter { $0.contains("pinned") }.count == 1)
    }

    @Test func aRemovedSourceTakesItsPinWithIt() throws {
        let cache = try DiskCache(configuration: .test(directory))
        cache.store(testBytes(10), for: "a", metadata: DataCacheMetadata())
        try cache.pin("a")
        #expect(cache.removeEntry(for: "a") == 1)
        #expect(cache.pinnedCount == 0)
    }

    // MARK: Migration

    @Test func aVersion2IndexIsMigratedKeepingItsEntries() throws {
        do {
            let cache = try DiskCache(configuration: .test(directory))
            cache.store(testBytes(10), for: "a", metadata: DataCacheMetadata())
            cache.store(testBytes(10), for: "b", metadata: DataCacheMetadata())
            cache.flush()
        }
        do {
            // As version 2 left it: neither column nor their indexes.
            let connection = try SQLiteConnection(path: directory.path + "/index.sqlite")
            try connection.execute("""
                DROP INDEX entries_by_source; DROP INDEX entries_unpinned_by_access; DROP INDEX entries_pinned;
                ALTER TABLE entries DROP COLUMN source; ALTER TABLE entries DROP COLUMN pinned;
                PRAGMA user_version = 2
                """)
        }
        let cache = try DiskCache(configuration: .test(directory))
        #expect(cache.count == 2)
        #expect(cache.pinnedCount == 0)
        try cache.pin("a")
        cache.store(testBytes(10), for: "a|thumb", metadata: DataCacheMetadata(), source: "a")
        #expect(cache.removeEntry(for: "a") == 2)
        #expect(cache.contains("b"))
        let connection = try SQLiteConnection(path: directory.path + "/index.sqlite")
        let statement = try connection.statement("PRAGMA user_version")
        defer { statement.finish() }
        _ = try statement.step()
        #expect(statement.int(0) == EntryIndex.schemaVersion)
    }
}
