import Foundation
import Synchronization

/// Response-body buffers kept for reuse, so that downloads of ordinary images write into memory
/// that is already mapped instead of fresh pages: a new `malloc` of more than 128 KiB is a fresh
/// `mmap` (or a trimmed arena), and its page faults and zeroing cost about as much CPU as
/// receiving the bytes.
///
/// A body handed to Swift as `Data` returns its buffer here when the last copy of that `Data`
/// is released (a custom deallocator), on whatever thread that happens. The pool is bounded in
/// count and bytes; buffers outside the size range, or beyond the bounds, are freed.
///
/// Buffers come in size classes (``roundedCapacity(_:)``: powers of two up to ``granularity``,
/// multiples of it above), so one kept for a body serves the next body of about the same size
/// instead of only a smaller one, and the pool holds about one buffer per transfer in flight
/// rather than one per size seen.
final class BodyBufferPool: Sendable {
    /// Smallest and largest capacity kept, in bytes.
    static let capacityRange = (16 * 1024)...(4 * 1024 * 1024)
    /// Buffers the pool may keep are allocated in multiples of this, in bytes: 64 KiB.
    static let granularity = 64 * 1024

    /// `capacity` rounded up when the pool could keep it: to a power of two up to
    /// ``granularity`` (16, 32 or 64 KiB, so a small body does not take a large buffer), to a
    /// multiple of it above; as is when the pool would not keep it.
    static func roundedCapacity(_ capacity: Int) -> Int {
        guard capacity <= capacityRange.upperBound else { return capacity }
        guard capacity > granularity else {
            var size = capacityRange.lowerBound
            while size < capacity { size *= 2 }
            return size
        }
        return (capacity + granularity - 1) / granularity * granularity
    }

    /// A kept buffer: its address (a plain integer, so the state is `Sendable`) and capacity.
    private struct Buffer {
        let address: UInt
        let capacity: Int
        var pointer: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: address)! }
    }
    private struct State {
        var buffers: [Buffer] = []
        var bytes = 0
    }

    private let state = Mutex<State>(State())
    /// Buffers kept at most.
    let maximumCount: Int
    /// Bytes kept at most, over all buffers.
    let maximumBytes: Int

    /// - Parameters:
    ///   - maximumCount: buffers kept at most; 16 by default, two for each of the eight
    ///     transfers a loader typically runs at once.
    ///   - maximumBytes: bytes kept at most; 8 MiB by default. Enough for the bodies in flight
    ///     of ordinary web images; larger bodies (1.5 MB PNGs, say) are mostly allocated afresh,
    ///     where a larger pool kept up to its whole size idle for the life of the process.
    init(maximumCount: Int = 16, maximumBytes: Int = 8 * 1024 * 1024) {
        self.maximumCount = maximumCount
        self.maximumBytes = maximumBytes
    }

    deinit {
        state.withLock { s in for buffer in s.buffers { free(buffer.pointer) } }
    }

    /// The smallest kept buffer of at least `minimumCapacity` bytes, the one kept last among
    /// equals (its memory is the likeliest to be in a cache); else the largest kept buffer,
    /// which the caller grows with `realloc`; `nil` when the pool is empty (the caller
    /// allocates).
    ///
    /// Why a smaller buffer rather than none: growing one keeps its pages, which are already
    /// mapped (a large block grows by `mremap`), where a fresh allocation faults in every page
    /// as the body is written.
    func take(minimumCapacity: Int) -> (pointer: UnsafeMutableRawPointer, capacity: Int)? {
        state.withLock { s in
            var best: Int?, largest: Int?
            for (i, buffer) in s.buffers.enumerated() {
                if buffer.capacity >= minimumCapacity, best == nil || buffer.capacity <= s.buffers[best!].capacity { best = i }
                if largest == nil || buffer.capacity >= s.buffers[largest!].capacity { largest = i }
            }
            guard let best = best ?? largest else { return nil }
            let buffer = s.buffers.remove(at: best)
            s.bytes -= buffer.capacity
            return (buffer.pointer, buffer.capacity)
        }
    }

    /// Keeps `pointer` (a `malloc` block of `capacity` bytes) for reuse, or frees it.
    ///
    /// When the pool is full, the new buffer replaces the smallest kept one if it is larger and
    /// the byte bound allows, so the pool comes to hold buffers that serve any ordinary body
    /// (see ``take(minimumCapacity:)``).
    func recycle(_ pointer: UnsafeMutableRawPointer, capacity: Int) {
        let address = UInt(bitPattern: pointer)
        guard Self.capacityRange.contains(capacity) else { return free(pointer) }
        let freed = state.withLock { s -> UInt? in
            if s.buffers.count < maximumCount, s.bytes + capacity <= maximumBytes {
                s.buffers.append(Buffer(address: address, capacity: capacity))
                s.bytes += capacity
                return nil
            }
            guard let smallest = s.buffers.indices.min(by: { s.buffers[$0].capacity < s.buffers[$1].capacity }),
                  s.buffers[smallest].capacity < capacity,
                  s.bytes - s.buffers[smallest].capacity + capacity <= maximumBytes else { return address }
            let evicted = s.buffers[smallest]
            s.buffers[smallest] = Buffer(address: address, capacity: capacity)
            s.bytes += capacity - evicted.capacity
            return evicted.address
        }
        if let freed { free(UnsafeMutableRawPointer(bitPattern: freed)) }
    }

    /// Buffers and bytes kept now (for tests).
    var kept: (count: Int, bytes: Int) { state.withLock { ($0.buffers.count, $0.bytes) } }
}
