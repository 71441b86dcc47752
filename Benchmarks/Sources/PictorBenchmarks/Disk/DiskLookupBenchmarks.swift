import CBenchReference
import Foundation
import PictorCore
import PictorCrypto
import PictorDiskCache

/// D6 (`DiskCache.contains` against `stat()`), D8 (SHA-256 file names against a C EVP digest
/// with a reused context) and, where the page cache can be dropped, D3/E3 cold reads.
struct DiskLookupBenchmarks {
    let options: Options
    let report: Report
    var plan: RunPlan { options.quick ? .quick : .full }

    static let containsID = "disk.contains.vs-stat"
    static let hashID = "disk.key-hash.sha256.vs-evp"
    static let coldIDs = ["disk.read.plain.50kB.cold", "disk.read.encrypted.50kB.cold"]

    /// An 86-byte image URL, the key length of performance.md §1.3.
    static func key86(_ i: Int) -> String { urlKey(i) + "?size=1024" }

    func run() {
        let ids = [Self.containsID, Self.hashID] + Self.coldIDs
        guard ids.contains(where: options.selects) else { return }
        print("disk cache: contains, key hashing, cold reads")
        hashing()
        do {
            try contains()
            try coldReads()
        } catch {
            for id in [Self.containsID] + Self.coldIDs where options.selects(id) { report.skip(id, "set-up failed: \(error)") }
        }
    }

    private func hashing() {
        guard options.selects(Self.hashID) else { return }
        let keys = (0..<1_000).map(Self.key86)
        let hasher = SHA256KeyHashing()
        var a = 0, b = 0
        let pictor: Batch = { n in
            let start = nowNanoseconds()
            for _ in 0..<n { blackHole(hasher.digest(for: keys[a % 1_000])); a &+= 1 }
            return Double(nowNanoseconds() - start)
        }
        var hex = [CChar](repeating: 0, count: 65)
        let reference: Batch = { n in
            let start = nowNanoseconds()
            for _ in 0..<n {
                var key = keys[b % 1_000]; b &+= 1
                key.withUTF8 { _ = cbench_sha256_hex($0.baseAddress, $0.count, &hex) }
                blackHole(hex)
            }
            return Double(nowNanoseconds() - start)
        }
        report.add(.comparison(
            id: Self.hashID, targetID: "D8",
            figure: "SHA256KeyHashing.digest(for:) of an \(keys[0].utf8.count)-byte URL → 64-hex String",
            result: Interleave.compare(plan: plan, candidate: pictor, reference: reference),
            referenceName: "C EVP_MD fetched once + reused EVP_MD_CTX + hex", goal: .timeAtMost(1.5)))
    }

    private func contains() throws {
        guard options.selects(Self.containsID) else { return }
        let files = options.quick ? 500 : 2_000
        let fixtures = try DiskFixtures(options: options)
        let cache = try DiskFixtures.openCache(try fixtures.directory("contains-cache"), encrypted: nil)
        let keys = (0..<files).map(DiskFixtures.key)
        let payload = DiskFixtures.payload(4_096, seed: 6)
        for key in keys { cache.store(payload, for: key) }
        cache.flush()
        let paths = DiskFixtures.writeReferenceFiles(try fixtures.directory("contains-ref"), count: files,
                                                     payload: payload, aesKey: nil)
        var a = 0, b = 0, misses = 0
        let pictor: Batch = { n in
            let start = nowNanoseconds()
            for _ in 0..<n { if !cache.contains(keys[a % files]) { misses += 1 }; a &+= 1 }
            return Double(nowNanoseconds() - start)
        }
        let reference: Batch = { n in
            let start = nowNanoseconds()
            for _ in 0..<n { blackHole(cbench_stat(paths[b % files])); b &+= 1 }
            return Double(nowNanoseconds() - start)
        }
        let result = Interleave.compare(plan: plan, candidate: pictor, reference: reference)
        if misses > 0 { report.note("\(Self.containsID): \(misses) unexpected misses") }
        report.add(.comparison(
            id: Self.containsID, targetID: "D6",
            figure: "DiskCache.contains, hit, \(files) entries (key → SHA-256 name → lookup)",
            result: result, referenceName: "C stat() of the path", goal: .timeAtMost(1.5)))
    }

    /// D3/E3: one pass reads every entry once right after the page cache was dropped (the drop is
    /// outside the timed part); plain and encrypted caches against C reads of the same files.
    private func coldReads() throws {
        guard Self.coldIDs.contains(where: options.selects) else { return }
        guard cbench_drop_caches() == 1 else {
            for id in Self.coldIDs where options.selects(id) {
                report.skip(id, "cannot write /proc/sys/vm/drop_caches (needs root): cold reads not measurable here")
            }
            return
        }
        let files = options.quick ? 100 : 300
        let fixtures = try DiskFixtures(options: options)
        let payload = DiskFixtures.payload(50_000, seed: 3)
        let keys = (0..<files).map(DiskFixtures.key)
        let encryption = try DiskCacheEncryption(masterKey: try EncryptionKey.generate())
        let aesKey = (0..<32).map { UInt8($0 &* 7 &+ 1) }
        let coldPlan = RunPlan(warmup: 1, pairs: options.quick ? 3 : 7, batchNanoseconds: 0)
        for (id, encrypted) in zip(Self.coldIDs, [false, true]) where options.selects(id) {
            let mode = encrypted ? "encrypted" : "plain"
            // Both caches open before any drop: the cold part is the entry read itself.
            let cache = try DiskFixtures.openCache(try fixtures.directory("cold-\(mode)-cache"),
                                                   encrypted: encrypted ? encryption : nil)
            for key in keys { cache.store(payload, for: key) }
            cache.flush()
            let paths = DiskFixtures.writeReferenceFiles(try fixtures.directory("cold-\(mode)-ref"), count: files,
                                                         payload: payload, aesKey: encrypted ? aesKey : nil)
            var misses = 0
            let result = Interleave.comparePasses(plan: coldPlan, items: files, candidate: {
                _ = cbench_drop_caches()
                let start = nowNanoseconds()
                for key in keys { if let data = cache.data(for: key) { blackHole(data) } else { misses += 1 } }
                return Double(nowNanoseconds() - start)
            }, reference: {
                _ = cbench_drop_caches()
                let start = nowNanoseconds()
                for path in paths {
                    blackHole(encrypted ? cbench_read_and_open(path, aesKey) : cbench_read_file(path))
                }
                return Double(nowNanoseconds() - start)
            })
            if misses > 0 { report.note("\(id): \(misses) unexpected misses") }
            report.add(.comparison(
                id: id, targetID: encrypted ? "E3" : "D3",
                figure: "DiskCache hit, 50kB, \(mode), cold (page cache dropped before each pass of \(files))",
                result: result,
                referenceName: encrypted ? "C cold read + AES-256-GCM open" : "C cold open/read/close",
                goal: .timeAtMost(encrypted ? 1.2 : 1.1)))
        }
    }
}
