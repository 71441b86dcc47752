import Foundation
import Synchronization

/// A request's cache keys under one pipeline: the key of its original bytes (the cache-key
/// hook's result) and the key of its final image, with its hash.
///
/// A class, immutable once made, so that a request keeps its keys in one reference and a memory
/// hit reads them without copying either string out.
final class RequestCacheKeys: Sendable {
    /// The number of the pipeline whose hook computed the keys.
    let pipeline: UInt64
    let dataKey: String
    let imageKey: ImageCacheKey

    /// Computes the keys of `request` under `cacheKey`, the cache-key hook of the pipeline
    /// numbered `pipeline`.
    init(_ request: ImageRequest, cacheKey: (ImageRequest) -> String, pipeline: UInt64) {
        self.pipeline = pipeline
        let dataKey = cacheKey(request)
        self.dataKey = dataKey
        if request.isProcessed {
            // Length-prefixed parts, so that no two (key, thumbnail, chain) triples share a key
            // whatever characters a cache-key hook or a custom processor identifier contains.
            var text = ImageProcessors.escaped(dataKey)
            if let thumbnail = request.thumbnail { text += "T" + ImageProcessors.escaped(thumbnail.identifier) }
            text += "P" + ImageProcessors.identifier(of: request.processors)
            imageKey = ImageCacheKey(text)
        } else {
            imageKey = ImageCacheKey(dataKey)
        }
    }
}

/// Where an ``ImageRequest`` keeps its cache keys once a pipeline has computed them, so a
/// memory hit costs a lookup instead of running the cache-key hook, joining processor
/// identifiers and hashing the text again. Copies of a request share the memo until one of
/// them changes a property the keys depend on, which gives that copy a new, empty memo.
///
/// The keys of the first pipeline that asks are kept for good and read without a lock (a
/// process usually has one pipeline); those of any other pipeline, whose hook may differ, are
/// kept one pipeline at a time (the last one that asked) behind a lock. A pipeline's hook never
/// changes, so kept keys stay right. The hook runs outside the lock.
final class RequestKeyMemo: Sendable {
    /// The first pipeline's keys: set once, released with the memo. (`AtomicLazyReference`
    /// would do, but its `load()` is not specialised outside the standard library and looks its
    /// generic metadata up on every call, a third of a memory hit: the benchmark suite's
    /// `pipeline.memory-hit.vs-dict` row, target M6.)
    private let first = Atomic<Unmanaged<RequestCacheKeys>?>(nil)
    private let other = Mutex<RequestCacheKeys?>(nil)

    init() {}

    deinit { first.load(ordering: .acquiring)?.release() }

    /// The keys kept for the pipeline numbered `pipeline` in the first place, unretained: valid
    /// as long as this memo (they are released only with it); `nil` when they are another
    /// pipeline's or not computed yet. Lets a memory hit read them without a lock, a reference
    /// count or a closure context.
    @inline(__always)
    func firstKeys(for pipeline: UInt64) -> Unmanaged<RequestCacheKeys>? {
        guard let kept = first.load(ordering: .acquiring),
              kept._withUnsafeGuaranteedRef({ $0.pipeline == pipeline }) else { return nil }
        return kept
    }

    /// The keys for the pipeline numbered `pipeline`, computed with `compute` when not kept.
    func keys(for pipeline: UInt64, compute: () -> RequestCacheKeys) -> RequestCacheKeys {
        if let kept = first.load(ordering: .acquiring)?.takeUnretainedValue() {
            if kept.pipeline == pipeline { return kept }
            if let kept = other.withLock({ $0?.pipeline == pipeline ? $0 : nil }) { return kept }
        }
        let keys = compute()
        let retained = Unmanaged.passRetained(keys)
        if first.compareExchange(expected: nil, desired: retained, ordering: .acquiringAndReleasing).exchanged {
            return keys
        }
        // Another pipeline (or this one, on another thread) filled the first place meanwhile.
        retained.release()
        if let kept = first.load(ordering: .acquiring)?.takeUnretainedValue(), kept.pipeline == pipeline { return kept }
        other.withLock { $0 = keys }
        return keys
    }
}

/// Numbers pipelines for ``RequestKeyMemo``: never reused within a process (an
/// `ObjectIdentifier` can be, once a pipeline is freed).
enum PipelineNumber {
    private static let counter = Atomic<UInt64>(0)

    static func next() -> UInt64 { counter.add(1, ordering: .relaxed).newValue }
}
