import Foundation
import PictorCore
import PictorCrypto
import Testing
@testable import PictorDiskCache

/// Files a user or the system puts into a cache directory (`lost+found`, `.DS_Store`, a README,
/// a backup of the index): the directory is still recognised as a cache, and nothing the cache
/// does (reads, verify, clear, a rebuilt index, a forced key change) adopts or deletes them.
@Suite(.timeLimit(.minutes(5)))
struct DiskCacheForeignFilesTests {
    let directory = TestDirectory()
    static let foreignFiles = [".DS_Store", "README.txt", "index.sqlite.bak"]

    func fill(_ configuration: DiskCache.Configuration, count: Int = 3) throws {
        let cache = try DiskCache(configuration: configuration)
        for i in 0..<count { cache.store(testBytes(300, seed: UInt64(i)), for: "k\(i)") }
        cache.flush()
    }

    func addForeignFiles() throws {
        try FileManager.default.createDirectory(
            at: directory.url.appendingPathComponent("lost+found"), withIntermediateDirectories: true)
        for name in Self.foreignFiles {
            try Data("someone else's \(name)".utf8).write(to: directory.url.appendingPathComponent(name))
        }
    }

    func expectForeignFilesIntact() {
        #expect(FileManager.default.fileExists(atPath: directory.path + "/lost+found"))
        for name in Self.foreignFiles {
            #expect(FileManager.default.contents(atPath: directory.path + "/" + name) == Data("someone else's \(name)".utf8), "\(name)")
        }
    }

    @Test(arguments: ["lost+found", ".DS_Store", "README.txt", "index.sqlite.bak"])
    func aCacheWithOneExtraFileIsStillACache(_ name: String) throws {
        try fill(.test(directory))
        if name == "lost+found" {
            try FileManager.default.createDirectory(at: directory.url.appendingPathComponent(name), withIntermediateDirectories: true)
        } else {
            try Data("x".utf8).write(to: directory.url.appendingPathComponent(name))
        }
        #expect(DiskCache.looksLikeCacheDirectory(directory.url))
    }

    @Test func aCacheBeingCreatedWithAnExtraFileIsACache() throws {
        // Lock and tmp/ (made before the index) beside a README
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: directory.path + "/lock", contents: nil))
        try Data("notes".utf8).write(to: directory.url.appendingPathComponent("README.txt"))
        #expect(DiskCache.looksLikeCacheDirectory(directory.url))
    }

    @Test func aFolderOfOtherFilesWithDigestNamesAndNoIndexIsNot() throws {
        // ~/Downloads with hex-named downloads in it: no index, no lock
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        try Data("a download".utf8).write(to: directory.url.appendingPathComponent(String(repeating: "ab", count: 32)))
        try Data("another".utf8).write(to: directory.url.appendingPathComponent("deadbeef"))
        try Data("notes".utf8).write(to: directory.url.appendingPathComponent("README.txt"))
        #expect(!DiskCache.looksLikeCacheDirectory(directory.url))
        // Not even with a tmp/ folder, nor with a file that only happens to be named like the index
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        #expect(!DiskCache.looksLikeCacheDirectory(directory.url))
        try Data("not a database".utf8).write(to: directory.url.appendingPathComponent("index.sqlite"))
        #expect(!DiskCache.looksLikeCacheDirectory(directory.url))
    }

    @Test func verifyClearAndARebuiltIndexLeaveOtherFilesAlone() throws {
        try fill(.test(directory))
        try addForeignFiles()
        do {
            let cache = try DiskCache(configuration: .test(directory))
            let report = cache.verify()
            #expect(report.valid == 3)
            #expect(report.orphanFiles == 0, "a README is not a stray entry file")
            cache.removeAll()
            cache.flush()
            #expect(cache.count == 0)
            expectForeignFilesIntact()
        }

        // A lost index: the entry files are adopted again, the others are not
        try fill(.test(directory))
        for name in ["index.sqlite", "index.sqlite-wal", "index.sqlite-shm"] { try? FileManager.default.removeItem(atPath: directory.path + "/" + name) }
        let rebuilt = try DiskCache(configuration: .test(directory))
        #expect(rebuilt.count == 3)
        expectForeignFilesIntact()
    }

    @Test func discardingAnotherKeysEntriesLeavesOtherFilesAlone() throws {
        try fill(EncryptedFixtures.configuration(directory, EncryptedFixtures.encryption))
        try addForeignFiles()
        var configuration = DiskCache.Configuration.test(directory)
        configuration.keyMismatchPolicy = .removeEntries
        let cache = try DiskCache(configuration: configuration)
        #expect(cache.count == 0)
        #expect(directory.entryFileNames().isEmpty)
        expectForeignFilesIntact()
    }
}
