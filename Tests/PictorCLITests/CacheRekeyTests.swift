import Foundation
import Pictor
import PictorTestSupport
import Testing
@testable import PictorCLI

/// `cache rekey` to the key the cache already has.
extension CacheDirectoryTests {
    @Test func rekeyingToTheSameKeyChangesNothing() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = try makeTemporaryDirectory("rekey-same")
        defer { try? FileManager.default.removeItem(at: keys) }
        let key = keys.appendingPathComponent("k1.key").path
        try EncryptionKey.generate().write(toFile: key)
        // The same key under another file name is the same key
        let copy = keys.appendingPathComponent("copy.key").path
        try FileManager.default.copyItem(atPath: key, toPath: copy)
        try fillEncrypted(keyFile: key, count: 2)
        for newKey in [key, copy] {
            let (code, console) = await run(["cache", "rekey", "--key-file", key, "--new-key-file", newKey, "--cache-dir", directory.path])
            #expect(code == 0, "\(console.errors)")
            #expect(console.output.contains("already encrypted under this key; nothing changed"), "\(console.output)")
            #expect(!console.output.contains("dropped"), "\(console.output)")
        }
        let (stats, statsConsole) = await run(["cache", "stats", "--key-file", key, "--cache-dir", directory.path])
        #expect(stats == 0)
        #expect(statsConsole.output.contains("entries:     2"), "\(statsConsole.output)")
    }
}
