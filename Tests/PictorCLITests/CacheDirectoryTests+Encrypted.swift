import Foundation
import Pictor
import PictorTestSupport
import Testing
@testable import PictorCLI

/// Maintenance of encrypted caches by the CLI.
extension CacheDirectoryTests {
    /// Fills the directory with `count` entries encrypted under the key in `keyFile`.
    func fillEncrypted(keyFile: String, count: Int) throws {
        var configuration = DiskCache.Configuration(directory: directory)
        configuration.logger = .disabled
        configuration.encrypt(with: try DiskCacheEncryption(masterKey: try EncryptionKey(contentsOfFile: keyFile)))
        let cache = try DiskCache(configuration: configuration)
        for i in 0..<count { cache.store(Data(repeating: UInt8(i), count: 200), for: "https://example.org/\(i).png") }
        cache.flush()
    }

    @Test func clearForceWithoutTheKeyCountsTheEntriesItDiscarded() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = try makeTemporaryDirectory("clear-keys")
        defer { try? FileManager.default.removeItem(at: keys) }
        let key = keys.appendingPathComponent("lost.key").path
        try EncryptionKey.generate().write(toFile: key)
        try fillEncrypted(keyFile: key, count: 5)
        let (code, console) = await run(["cache", "clear", "--force", "--cache-dir", directory.path])
        #expect(code == 0, "\(console.errors)")
        #expect(console.output.contains("removed 5 entries"), "\(console.output)")
        let (stats, statsConsole) = await run(["cache", "stats", "--cache-dir", directory.path])
        #expect(stats == 0, "now a plain cache: \(statsConsole.errors)")
        #expect(statsConsole.output.contains("entries:     0"))
    }

    /// An encrypted cache's index keeps no format (it is in the sealed file), so its entries are
    /// counted as sealed, not as of an unknown format.
    @Test func statsOfAnEncryptedCacheCountsSealedEntries() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = try makeTemporaryDirectory("stats-keys")
        defer { try? FileManager.default.removeItem(at: keys) }
        let key = keys.appendingPathComponent("cache.key").path
        try EncryptionKey.generate().write(toFile: key)
        try fillEncrypted(keyFile: key, count: 3)
        let (code, console) = await run(["cache", "stats", "--cache-dir", directory.path, "--key-file", key])
        #expect(code == 0, "\(console.errors)")
        #expect(console.output.contains("formats:     sealed 3\n"), "\(console.output)")
        #expect(!console.output.contains("unknown"), "\(console.output)")
    }
}
