import Foundation
import PictorCore
import Synchronization
import Testing
@testable import PictorDiskCache

@Suite(.timeLimit(.minutes(5)))
struct DiskCacheConcurrencyTests {
    let directory = TestDirectory()

    @Test func concurrentCallsNeverServeAnotherKeysBytes() throws {
        // Given a small cache hammered from 8 threads with stores, reads, removals and clears
        var c = DiskCache.Configuration.test(directory)
        c.sizeLimit = 400_000
        let cache = try DiskCache(configuration: c)
        let wrongValues = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            var rng = SystemRandomNumberGenerator()
            for step in 0..<400 {
                let key = UInt32.random(in: 0..<40, using: &rng)
                switch Int.random(in: 0..<100, using: &rng) {
                case 0..<45:
                    let value = CrashPayload.make(key: key, generation: UInt32(thread * 10_000 + step),
                                                  length: Int.random(in: 16...20_000, using: &rng))
                    cache.store(value, for: "k\(key)")
                case 45..<90:
                    if let data = cache.data(for: "k\(key)"), CrashPayload.check(data)?.key != key {
                        wrongValues.add(1, ordering: .relaxed)
                    }
                case 90..<96: cache.removeData(for: "k\(key)")
                case 96..<98: cache.updateMetadata(DataCacheMetadata(etag: "\(step)"), for: "k\(key)")
                case 98: cache.flush()
                default: if step % 50 == 0 { cache.removeAll() } else { _ = cache.contains("k\(key)") }
                }
            }
        }
        cache.flush()
        // Then no read returned another key's bytes, the limit holds, and index and files agree
        #expect(wrongValues.load(ordering: .relaxed) == 0)
        #expect(cache.totalSize <= 400_000)
        #expect(Set(cache.entries().map(\.digest)) == directory.entryFileNames())
        for key in 0..<40 {
            if let data = cache.data(for: "k\(key)") { #expect(CrashPayload.check(data)?.key == UInt32(key)) }
        }
        #expect(cache.verify().corrupt == 0)
    }

    @Test func storeWaitsForTheWriterPastMaxPendingBytes() throws {
        // Given a 10-byte staging budget
        var c = DiskCache.Configuration.test(directory)
        c.maxPendingBytes = 10
        let cache = try DiskCache(configuration: c)
        // When a larger value is stored
        cache.store(testBytes(100), for: "big")
        // Then it is on disk when the call returns
        #expect(directory.entryFileNames().count == 1)
    }

    @Test func fsyncDurabilityWritesTheSameEntries() throws {
        var c = DiskCache.Configuration.test(directory)
        c.durability = .fsync
        let cache = try DiskCache(configuration: c)
        cache.store(testBytes(5_000), for: "a")
        cache.flush()
        #expect(try DiskCache(configuration: c).data(for: "a") == testBytes(5_000))
    }
}
