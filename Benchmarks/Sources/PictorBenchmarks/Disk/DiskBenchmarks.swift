import CBenchReference
import Foundation
import PictorCore
import PictorCrypto
import PictorDiskCache

/// Disk cache (issue 4, targets D1/D2/D4) and encryption at rest (issue 5, E1/E2/E4): warm hit
/// reads and writes of 50 kB and 500 kB entries against the same bytes read and written with
/// POSIX calls from C, plain and AES-256-GCM.
struct DiskBenchmarks {
    let options: Options
    let report: Report
    var plan: RunPlan { options.quick ? .quick : .full }

    func run() {
        let sizes = [(50_000, "50kB", options.quick ? 500 : 2_000), (500_000, "500kB", options.quick ? 100 : 400)]
        for (bytes, label, files) in sizes {
            let ids = ["read.plain", "read.encrypted", "write.plain", "write.encrypted", "aead.open", "aead.seal"]
                .map { "disk.\($0).\(label)" }
            guard ids.contains(where: options.selects) else { continue }
            print("disk cache, \(label) entries")
            do {
                try runSize(bytes: bytes, label: label, files: files)
            } catch {
                for id in ids where options.selects(id) { report.skip(id, "set-up failed: \(error)") }
            }
        }
        DiskScaleBenchmarks(options: options, report: report).run()
    }

    private func runSize(bytes: Int, label: String, files: Int) throws {
        let fixtures = try DiskFixtures(options: options)
        let payload = DiskFixtures.payload(bytes, seed: UInt64(bytes))
        let keys = (0..<files).map(DiskFixtures.key)
        let master = try EncryptionKey.generate()
        let encryption = try DiskCacheEncryption(masterKey: master)
        let aesKey = (0..<32).map { UInt8($0 &* 7 &+ 1) }

        for encrypted in [false, true] {
            let mode = encrypted ? "encrypted" : "plain"
            let readID = "disk.read.\(mode).\(label)", writeID = "disk.write.\(mode).\(label)"
            if options.selects(readID) {
                let cacheDir = try fixtures.directory("read-\(mode)-cache")
                let refDir = try fixtures.directory("read-\(mode)-ref")
                let cache = try DiskFixtures.openCache(cacheDir, encrypted: encrypted ? encryption : nil)
                for key in keys { cache.store(payload, for: key) }
                cache.flush()
                let paths = DiskFixtures.writeReferenceFiles(refDir, count: files, payload: payload,
                                                             aesKey: encrypted ? aesKey : nil)
                var c = 0, r = 0, misses = 0
                let hit: Batch = { n in
                    let start = nowNanoseconds()
                    for _ in 0..<n {
                        if let data = cache.data(for: keys[c % files]) { blackHole(data) } else { misses += 1 }
                        c &+= 1
                    }
                    return Double(nowNanoseconds() - start)
                }
                let reference: Batch = { n in
                    let start = nowNanoseconds()
                    for _ in 0..<n {
                        let got = encrypted ? cbench_read_and_open(paths[r % files], aesKey) : cbench_read_file(paths[r % files])
                        blackHole(got); r &+= 1
                    }
                    return Double(nowNanoseconds() - start)
                }
                let result = Interleave.compare(plan: plan, candidate: hit, reference: reference)
                if misses > 0 { report.note("\(readID): \(misses) unexpected misses") }
                report.add(.comparison(
                    id: readID, targetID: encrypted ? "E2" : (bytes < 100_000 ? "D1" : "D2"),
                    figure: "DiskCache hit, \(label), \(mode), warm (key → name → read)",
                    result: result,
                    referenceName: encrypted ? "C read + AES-256-GCM open" : "C open/read/close",
                    goal: .timeAtMost(1.3)))
            }
            if options.selects(writeID) {
                let cacheDir = try fixtures.directory("write-\(mode)-cache")
                let refDir = try fixtures.directory("write-\(mode)-ref")
                let cache = try DiskFixtures.openCache(cacheDir, encrypted: encrypted ? encryption : nil)
                let slots = min(files, 200)
                var c = 0, r = 0
                // Both sides overwrite a rotating set of entries; the cache's includes the index
                // commit (flush waits for the background writer).
                let store: Batch = { n in
                    let start = nowNanoseconds()
                    for _ in 0..<n { cache.store(payload, for: keys[c % slots]); c &+= 1 }
                    cache.flush()
                    return Double(nowNanoseconds() - start)
                }
                var sealed = Data(count: 12 + bytes + 16)
                let reference: Batch = { n in
                    let start = nowNanoseconds()
                    for _ in 0..<n {
                        let name = DiskFixtures.name(r % slots); r &+= 1
                        if encrypted {
                            let nonce = (0..<12).map { _ in UInt8.random(in: 0...255) }
                            sealed.withUnsafeMutableBytes { out in
                                let o = out.bindMemory(to: UInt8.self).baseAddress!
                                payload.withUnsafeBytes { p in
                                    _ = cbench_aes_gcm_seal(aesKey, nonce, p.bindMemory(to: UInt8.self).baseAddress!,
                                                            bytes, o + 12, o + 12 + bytes)
                                }
                                _ = cbench_write_rename(refDir.path, name, o, out.count)
                            }
                        } else {
                            payload.withUnsafeBytes { p in
                                _ = cbench_write_rename(refDir.path, name, p.bindMemory(to: UInt8.self).baseAddress!, bytes)
                            }
                        }
                    }
                    return Double(nowNanoseconds() - start)
                }
                let result = Interleave.compare(plan: plan, limit: 2_000, candidate: store, reference: reference)
                report.add(.comparison(
                    id: writeID, targetID: encrypted ? "E4" : "D4",
                    figure: "DiskCache store, \(label), \(mode), .fast durability, incl. index commit",
                    result: result,
                    referenceName: encrypted ? "C AES-256-GCM seal + write + rename" : "C write + rename",
                    goal: .timeAtMost(encrypted ? 1.2 : 1.5)))
            }
        }
        aead(bytes: bytes, label: label, cipher: encryption.cipher, aesKey: aesKey, payload: payload)
    }

    /// E1: ``AESGCMCipher`` seal and open against the same EVP calls made from C.
    private func aead(bytes: Int, label: String, cipher: AESGCMCipher, aesKey: [UInt8], payload: Data) {
        let ad = Data("0123456789abcdef0123456789abcdef".utf8)
        guard let envelope = try? cipher.seal(payload, associatedData: ad) else { return }
        var out = Data(count: bytes + 16)
        let nonce = [UInt8](repeating: 1, count: 12)
        var tag = [UInt8](repeating: 0, count: 16)
        var ciphertext = Data(count: bytes)
        payload.withUnsafeBytes { p in
            ciphertext.withUnsafeMutableBytes { c in
                _ = cbench_aes_gcm_seal(aesKey, nonce, p.bindMemory(to: UInt8.self).baseAddress!, bytes,
                                        c.bindMemory(to: UInt8.self).baseAddress!, &tag)
            }
        }
        if options.selects("disk.aead.open.\(label)") {
            let open: Batch = { n in
                let start = nowNanoseconds()
                for _ in 0..<n { blackHole(try? cipher.open(envelope, associatedData: ad)) }
                return Double(nowNanoseconds() - start)
            }
            let reference: Batch = { n in
                let start = nowNanoseconds()
                for _ in 0..<n {
                    ciphertext.withUnsafeBytes { c in
                        out.withUnsafeMutableBytes { o in
                            blackHole(cbench_aes_gcm_open(aesKey, nonce, c.bindMemory(to: UInt8.self).baseAddress!, bytes,
                                                          tag, o.bindMemory(to: UInt8.self).baseAddress!))
                        }
                    }
                }
                return Double(nowNanoseconds() - start)
            }
            report.add(.comparison(
                id: "disk.aead.open.\(label)", targetID: "E1", figure: "AESGCMCipher.open, \(label)",
                result: Interleave.compare(plan: plan, candidate: open, reference: reference),
                referenceName: "C EVP AES-256-GCM decrypt", goal: .speedupAtLeast(0.8)))
        }
        if options.selects("disk.aead.seal.\(label)") {
            let seal: Batch = { n in
                let start = nowNanoseconds()
                for _ in 0..<n { blackHole(try? cipher.seal(payload, associatedData: ad)) }
                return Double(nowNanoseconds() - start)
            }
            let reference: Batch = { n in
                let start = nowNanoseconds()
                for _ in 0..<n {
                    payload.withUnsafeBytes { p in
                        out.withUnsafeMutableBytes { o in
                            blackHole(cbench_aes_gcm_seal(aesKey, nonce, p.bindMemory(to: UInt8.self).baseAddress!, bytes,
                                                          o.bindMemory(to: UInt8.self).baseAddress!, &tag))
                        }
                    }
                }
                return Double(nowNanoseconds() - start)
            }
            report.add(.comparison(
                id: "disk.aead.seal.\(label)", targetID: "E1", figure: "AESGCMCipher.seal, \(label)",
                result: Interleave.compare(plan: plan, candidate: seal, reference: reference),
                referenceName: "C EVP AES-256-GCM encrypt", goal: .speedupAtLeast(0.8)))
        }
    }
}
