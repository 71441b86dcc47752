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
        // The low bits pick a bucket: 4,096 buckets should each get about 24 keys.
        var buckets = [Int](repeating: 0, count: 4096)
        for key in keys { buckets[LRUKey(key)._rawHashValue(seed: 7) & 4095] += 1 }
        #expect(buckets.max()! < 60 && buckets.min()! > 5, "max \(buckets.max()!), min \(buckets.min()!)")
        // Copying between dictionaries with other seeds stays linear (Swift's own guard against
        // clustering): a quick check that it completes and keeps every key.
        var index: [LRUKey<ImageCacheKey>: Int] = [:]
        for (i, key) in keys.enumerated() { index[LRUKey(key)] = i }
        var copy: [LRUKey<ImageCacheKey>: Int] = [:]
        for (key, value) in index { copy[key] = value }
        #expect(copy.count == keys.count && copy[LRUKey(keys[500])] == 500)
    }
}
