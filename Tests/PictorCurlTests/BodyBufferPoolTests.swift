import Foundation
@testable import PictorCurl
import Testing

/// Body buffers reused across downloads, bounded, and returned when the body is released.
@Suite struct BodyBufferPoolTests {
    @Test func theSmallestFittingBufferIsHandedOut() throws {
        let pool = BodyBufferPool()
        pool.recycle(malloc(300_000)!, capacity: 300_000)
        pool.recycle(malloc(100_000)!, capacity: 100_000)
        pool.recycle(malloc(200_000)!, capacity: 200_000)
        let taken = try #require(pool.take(minimumCapacity: 150_000))
        #expect(taken.capacity == 200_000)
        #expect(pool.kept.count == 2)
        free(taken.pointer)
        // Nothing large enough: the largest kept buffer, for the caller to grow.
        let largest = try #require(pool.take(minimumCapacity: 400_000))
        #expect(largest.capacity == 300_000)
        free(largest.pointer)
        _ = pool.take(minimumCapacity: 1).map { free($0.pointer) }
        #expect(pool.take(minimumCapacity: 1) == nil, "an empty pool hands out nothing")
    }

    /// A body larger than every kept buffer grows one of them (its pages are already mapped)
    /// instead of allocating afresh, and a full pool keeps the larger of two buffers, so it
    /// comes to hold buffers that fit any ordinary body.
    @Test func aLargerBodyGrowsAKeptBufferAndAFullPoolKeepsTheLarger() {
        let pool = BodyBufferPool(maximumCount: 2, maximumBytes: 1 << 20)
        pool.recycle(malloc(131_072)!, capacity: 131_072)
        var body = ResponseBodyBuffer(limit: nil, pool: pool)
        let reserved = body.reserve(200_000)
        #expect(reserved)
        #expect(body.capacity == 262_144)
        #expect(pool.kept.count == 0, "the kept buffer was taken and grown")
        let chunk = [UInt8](repeating: 9, count: 200_000)
        let appended = chunk.withUnsafeBytes { body.append($0.baseAddress!, count: $0.count) }
        #expect(appended)
        let data = body.takeData()
        #expect(data.count == 200_000 && data.allSatisfy { $0 == 9 })
        pool.recycle(malloc(65_536)!, capacity: 65_536)
        pool.recycle(malloc(131_072)!, capacity: 131_072)
        #expect(pool.kept == (2, 196_608))
        pool.recycle(malloc(262_144)!, capacity: 262_144)             // full: replaces the smallest
        #expect(pool.kept == (2, 393_216))
        pool.recycle(malloc(32_768)!, capacity: 32_768)               // full, and smaller: freed
        #expect(pool.kept == (2, 393_216))
        _ = data
    }

    @Test func thePoolIsBoundedInCountBytesAndSize() {
        let pool = BodyBufferPool(maximumCount: 2, maximumBytes: 250_000)
        pool.recycle(malloc(100_000)!, capacity: 100_000)
        pool.recycle(malloc(100_000)!, capacity: 100_000)
        pool.recycle(malloc(20_000)!, capacity: 20_000)                 // over the count: freed
        #expect(pool.kept.count == 2)
        let small = BodyBufferPool()
        small.recycle(malloc(1_000)!, capacity: 1_000)                  // too small to keep
        small.recycle(malloc(8 << 20)!, capacity: 8 << 20)              // too large to keep
        #expect(small.kept.count == 0)
        let bytes = BodyBufferPool(maximumCount: 10, maximumBytes: 150_000)
        bytes.recycle(malloc(100_000)!, capacity: 100_000)
        bytes.recycle(malloc(100_000)!, capacity: 100_000)              // over the bytes: freed
        #expect(bytes.kept.bytes == 100_000)
    }

    /// A body's buffer is allocated in the pool's granularity, so the next body of about the same
    /// size, a little larger, reuses it instead of allocating; the cap still bounds it.
    @Test func buffersComeInSizeClassesSoNeighbouringSizesShareThem() {
        let pool = BodyBufferPool()
        var first = ResponseBodyBuffer(limit: nil, pool: pool)
        let reservedFirst = first.reserve(100_000)
        #expect(reservedFirst)
        #expect(first.capacity == 131_072)
        first.release()
        var second = ResponseBodyBuffer(limit: nil, pool: pool)
        let reservedSecond = second.reserve(120_000)
        #expect(reservedSecond)
        #expect(second.capacity == 131_072, "the kept buffer is reused")
        #expect(pool.kept.count == 0)
        second.release()
        var capped = ResponseBodyBuffer(limit: 100_000, pool: BodyBufferPool())
        let reservedCapped = capped.reserve(90_000)
        #expect(reservedCapped)
        #expect(capped.capacity == 100_000, "rounded, but not past the cap")
        capped.release()
        #expect(BodyBufferPool.roundedCapacity(1) == 16 * 1024)
        #expect(BodyBufferPool.roundedCapacity(16_385) == 32 * 1024)
        #expect(BodyBufferPool.roundedCapacity(65_536) == 65_536)
        #expect(BodyBufferPool.roundedCapacity(65_537) == 131_072)
        #expect(BodyBufferPool.roundedCapacity(5 << 20) == 5 << 20, "a size the pool never keeps is not rounded")
    }

    @Test func aBodyGoesBackToThePoolWhenItsDataIsReleased() {
        let pool = BodyBufferPool()
        var buffer = ResponseBodyBuffer(limit: nil, pool: pool)
        let chunk = [UInt8](repeating: 7, count: 50_000)
        for _ in 0..<3 {
            let appended = chunk.withUnsafeBytes { buffer.append($0.baseAddress!, count: $0.count) }
            #expect(appended)
        }
        do {
            let data = buffer.takeData()
            #expect(data.count == 150_000)
            #expect(data.allSatisfy { $0 == 7 })
            #expect(pool.kept.count == 0)
        }
        #expect(pool.kept.count == 1)
        // The next body reuses it.
        var next = ResponseBodyBuffer(limit: nil, pool: pool)
        let reserved = next.reserve(120_000)
        #expect(reserved)
        #expect(pool.kept.count == 0)
        next.release()
        #expect(pool.kept.count == 1)
    }
}
