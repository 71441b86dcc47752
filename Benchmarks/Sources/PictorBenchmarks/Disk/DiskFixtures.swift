import CBenchReference
import Foundation
import PictorCore
import PictorCrypto
import PictorDiskCache

/// Entries for the disk benchmarks: keys, one payload of random bytes, a plain reference
/// directory of the same bytes, and helpers to open caches.
struct DiskFixtures {
    let root: URL

    init(options: Options) throws {
        root = URL(fileURLWithPath: options.workDirectory, isDirectory: true).appendingPathComponent("disk")
        try? FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// `count` random bytes from a seeded generator.
    static func payload(_ count: Int, seed: UInt64) -> Data {
        var rng = SeededGenerator(seed: seed)
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for i in words.indices { words[i] = rng.next() }
        }
        return data
    }

    /// A 32-hex-character file name, as a cache would use.
    static func name(_ i: Int) -> String { String(format: "%016llx%016llx", UInt64(i) &* 0x9E37_79B9_7F4A_7C15, UInt64(i)) }

    /// An image-URL-like cache key.
    static func key(_ i: Int) -> String { urlKey(i) }

    /// A directory for one benchmark.
    func directory(_ name: String) throws -> URL {
        let url = root.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A cache with no size or age limit and no timer, optionally encrypted.
    static func openCache(_ directory: URL, encrypted: DiskCacheEncryption?) throws -> DiskCache {
        var configuration = DiskCache.Configuration(directory: directory)
        configuration.sizeLimit = 1 << 40
        configuration.maxAge = nil
        configuration.sweepInterval = nil
        if let encrypted {
            configuration.cipher = encrypted.cipher
            configuration.keyHashing = encrypted.keyHashing
        }
        return try DiskCache(configuration: configuration)
    }

    /// Writes `count` reference files of `payload` with POSIX calls (C), plain or as
    /// nonce | AES-256-GCM ciphertext | tag under `key`.
    static func writeReferenceFiles(_ directory: URL, count: Int, payload: Data, aesKey: [UInt8]?) -> [String] {
        var bytes = payload
        if let aesKey {
            var sealed = Data(count: 12 + payload.count + 16)
            let nonce = [UInt8](repeating: 7, count: 12)
            sealed.withUnsafeMutableBytes { out in
                let o = out.bindMemory(to: UInt8.self).baseAddress!
                for i in 0..<12 { o[i] = nonce[i] }
                payload.withUnsafeBytes { p in
                    _ = cbench_aes_gcm_seal(aesKey, nonce, p.bindMemory(to: UInt8.self).baseAddress!, payload.count,
                                            o + 12, o + 12 + payload.count)
                }
            }
            bytes = sealed
        }
        return (0..<count).map { i in
            let name = Self.name(i)
            bytes.withUnsafeBytes { b in
                _ = cbench_write_rename(directory.path, name, b.bindMemory(to: UInt8.self).baseAddress!, bytes.count)
            }
            return directory.appendingPathComponent(name).path
        }
    }
}
