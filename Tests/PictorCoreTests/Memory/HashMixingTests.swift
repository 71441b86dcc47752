@testable import PictorCore
import Testing

/// Keys with a precomputed hash feed `Dictionary` a mixed copy of it instead of hashing again:
/// equal keys must still hash equally under every seed, and distinct keys spread out.
struct HashMixingTests {
    @Test func equalKeysHashEquallyUnderEverySeed() {
        let a = ImageCacheKey("https://example.test/a.jpg|T64"), b = ImageCacheKey("https://example.test/a.jpg|T64")
        for seed in [0, 1, -1, 42, Int.max, Int.min] {
            #expect(a._rawHashValue(seed: seed) == b._rawHashValue(seed: seed))
            #expect(LRUKey(a)._rawHashValue(seed: seed) == LRUKey(b)._rawHashValue(seed: seed))
        }
        #expect(a.hashValue == b.hashValue)
    }

    @Test func distinctKeysSpreadOverBuckets() {
        let keys = (0..<100_000).map { ImageCacheKey("https://example.test/\($0).jpg") }
        let set = Set(keys)
        #expect(set.count == keys.count)
        #expect(keys.allSatisfy { set.contains($0) })
        // The low bits pick a bucket: 4,096 buckets should each get about 24 keys. Swift seeds its
        // hashes per process, so the counts differ from run to run; the bounds are set for a
        // uniform spread to miss them less than once in a million runs. (A bound on the emptiest
        // bucket alone, `min > 5`, failed about once in 110 runs of a perfectly mixed hash.) A
        // chi-square over 4,095 degrees of freedom has mean 4,095 and deviation about 90.5: 8
        // deviations above that is a clustering no uniform hash makes, and a mix that left the
        // low bits unspread would score in the hundreds of thousands.
        for seed in [7, -7, 1 << 40] {
            var buckets = [Int](repeating: 0, count: 4096)
            for key in keys { buckets[LRUKey(key)._rawHashValue(seed: seed) & 4095] += 1 }
            let mean = Double(keys.count) / Double(buckets.count)
            let chiSquare = buckets.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) / mean }
            #expect(chiSquare < 4_095 + 8 * 90.5, "seed \(seed): chi-square \(chiSquare)")
            #expect(buckets.max()! < 70 && buckets.min()! > 0, "seed \(seed): max \(buckets.max()!), min \(buckets.min()!)")
        }
        // Copying between dictionaries with other seeds stays linear (Swift's own guard against
        // clustering): a quick check that it completes and keeps every key.
        var index: [LRUKey<ImageCacheKey>: Int] = [:]
        for (i, key) in keys.enumerated() { index[LRUKey(key)] = i }
        var copy: [LRUKey<ImageCacheKey>: Int] = [:]
        for (key, value) in index { copy[key] = value }
        #expect(copy.count == keys.count && copy[LRUKey(keys[500])] == 500)
    }
}
