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
final class BodyBufferPool: Sendable {
    /// Smallest and largest capacity kept, in bytes.
    static let capacityRange = (16 * 1024)...(4 * 1024 * 1024)

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

    init(maximumCount: Int = 32, maximumBytes: Int = 24 * 1024 * 1024) {
        self.maximumCount = maximumCount
        self.maximumBytes = maximumBytes
    }

    deinit {
        state.withLock { s in for buffer in s.buffers { free(buffer.pointer) } }
    }

    /// The smallest kept buffer of at least `minimumCapacity` bytes, or `nil` (the caller
    /// allocates).
    func take(minimumCapacity: Int) -> (pointer: UnsafeMutableRawPointer, capacity: Int)? {
        state.withLock { s in
            var best: Int?
            for (i, buffer) in s.buffers.enumerated() where buffer.capacity >= minimumCapacity {
                if best == nil || buffer.capacity < s.buffers[best!].capacity { best = i }
            }
            guard let best else { return nil }
            let buffer = s.buffers.remove(at: best)
            s.bytes -= buffer.capacity
            return (buffer.pointer, buffer.capacity)
        }
    }

    /// Keeps `pointer` (a `malloc` block of `capacity` bytes) for reuse, or frees it.
    func recycle(_ pointer: UnsafeMutableRawPointer, capacity: Int) {
        let address = UInt(bitPattern: pointer)
        let kept = Self.capacityRange.contains(capacity) && state.withLock { s -> Bool in
            guard s.buffers.count < maximumCount, s.bytes + capacity <= maximumBytes else { return false }
            s.buffers.append(Buffer(address: address, capacity: capacity))
            s.bytes += capacity
            return true
        }
        if !kept { free(pointer) }
    }

    /// Buffers and bytes kept now (for tests).
    var kept: (count: Int, bytes: Int) { state.withLock { ($0.buffers.count, $0.bytes) } }
}
