import Foundation

/// One growing `malloc` buffer for a response body, handed to Swift at the end as `Data` that
/// takes ownership (`Data(bytesNoCopy:count:deallocator:)`): libcurl's chunks are copied once,
/// into this buffer, and never through per-chunk `Data` values. Buffers of ordinary sizes come
/// from, and go back to, a ``BodyBufferPool``.
///
/// It grows geometrically (doubling, from 16 KiB) but never past `limit`, the body-size cap,
/// so an oversized body costs at most the cap in memory before the transfer stops. A sane
/// `Content-Length` pre-sizes it (``reserve(_:)``), rounded up to the pool's granularity.
///
/// Not thread-safe: used by the event thread only. The owner calls ``release()`` (or
/// ``takeData()``) exactly once.
struct ResponseBodyBuffer {
    /// Largest size pre-reserved from a `Content-Length`, in bytes: a larger declared length
    /// grows geometrically instead, so a lying header cannot make Pictor allocate gigabytes up
    /// front (with no cap, or a large one).
    static let maximumReservation = 64 * 1024 * 1024
    /// The first allocation when nothing is known, in bytes.
    static let initialCapacity = 16 * 1024

    private(set) var count = 0
    private(set) var capacity = 0
    private var storage: UnsafeMutableRawPointer?
    /// The body-size cap, in bytes; the buffer never grows past it.
    let limit: Int?
    /// Where buffers come from and go back to.
    let pool: BodyBufferPool

    init(limit: Int?, pool: BodyBufferPool) {
        self.limit = limit
        self.pool = pool
    }

    /// Makes room for `total` bytes in all (when it is sane); returns `false` when out of memory.
    mutating func reserve(_ total: Int) -> Bool {
        guard total > capacity, total <= min(limit ?? .max, Self.maximumReservation) else { return true }
        return resize(to: total)
    }

    /// Appends `length` bytes; returns `false` when out of memory. The caller checks the cap
    /// first: growth stops at ``limit``.
    mutating func append(_ bytes: UnsafeRawPointer, count length: Int) -> Bool {
        let needed = count + length
        if needed > capacity {
            var grown = max(needed, capacity * 2, Self.initialCapacity)
            if let limit { grown = min(grown, max(limit, needed)) }
            guard resize(to: grown) else { return false }
        }
        (storage! + count).copyMemory(from: bytes, byteCount: length)
        count = needed
        return true
    }

    /// Forgets the bytes received so far (a new response head started), keeping the memory.
    mutating func removeAll() { count = 0 }

    /// The body as `Data` that owns the memory; the buffer is empty afterwards. A buffer of a
    /// size the pool keeps goes back to it when the `Data` is released; a larger one is shrunk
    /// first when much of it is unused, and freed.
    mutating func takeData() -> Data {
        guard let storage, count > 0 else {
            release()
            return Data()
        }
        let data: Data
        if BodyBufferPool.capacityRange.contains(capacity) {
            let pool = self.pool, capacity = self.capacity
            data = Data(bytesNoCopy: storage, count: count, deallocator: .custom { pointer, _ in
                pool.recycle(pointer, capacity: capacity)
            })
        } else {
            var pointer = storage
            if capacity - count > max(4096, capacity / 8), let shrunk = realloc(storage, count) {
                pointer = shrunk
            }
            data = Data(bytesNoCopy: pointer, count: count, deallocator: .free)
        }
        self.storage = nil
        count = 0
        capacity = 0
        return data
    }

    /// Gives the memory back (to the pool, or freed); the buffer is empty afterwards.
    mutating func release() {
        if let storage { pool.recycle(storage, capacity: capacity) }
        storage = nil
        count = 0
        capacity = 0
    }

    private mutating func resize(to newCapacity: Int) -> Bool {
        if storage == nil, let reused = pool.take(minimumCapacity: newCapacity) {
            storage = reused.pointer
            capacity = reused.capacity
            // A smaller kept buffer is grown below: its pages stay mapped.
            if capacity >= newCapacity { return true }
        }
        // A size the pool keeps is rounded up so the buffer can serve later bodies of about the
        // same size; never past the cap.
        let rounded = min(BodyBufferPool.roundedCapacity(newCapacity), max(limit ?? .max, newCapacity))
        guard let grown = realloc(storage, rounded) else { return false }
        storage = grown
        capacity = rounded
        return true
    }
}
