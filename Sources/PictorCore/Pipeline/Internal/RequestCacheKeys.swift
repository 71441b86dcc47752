import Foundation
import Synchronization

/// A request's cache keys under one pipeline: the key of its original bytes (the cache-key
/// hook's result) and the key of its final image.
struct RequestCacheKeys: Sendable {
    let dataKey: String
    let imageKey: ImageCacheKey

    /// Computes the keys of `request` under `configuration`'s cache-key hook.
    init(_ request: ImageRequest, configuration: ImagePipeline.Configuration) {
        let dataKey = configuration.cacheKey(request)
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
/// The keys are kept for the first pipeline that asked (read without a lock) and for the last
/// other one (behind a lock): a request used with another pipeline, whose hook may differ,
/// computes them again for it.
final class RequestKeyMemo: Sendable {
    /// The keys and the number of the pipeline they were computed for; immutable once made.
    private final class Entry: Sendable {
        let pipeline: UInt64
        let keys: RequestCacheKeys
        init(pipeline: UInt64, keys: RequestCacheKeys) { self.pipeline = pipeline; self.keys = keys }
    }

    /// Set once, by the first pipeline to compute the keys, then read without a lock: a memory
    /// hit's whole budget is a few dictionary lookups, and a mutex here cost as much as one.
    private let first = AtomicLazyReference<Entry>()
    /// The keys of the last other pipeline that asked, behind a lock (a request moved to a
    /// second pipeline still computes its keys once there, not on every use).
    private let other = Mutex<Entry?>(nil)

    init() {}

    /// The keys for the pipeline numbered `pipeline`, computed with `compute` when not kept.
    func keys(for pipeline: UInt64, compute: () -> RequestCacheKeys) -> RequestCacheKeys {
        guard let kept = first.load() else {
            return first.storeIfNil(Entry(pipeline: pipeline, keys: compute())).keys
        }
        if kept.pipeline == pipeline { return kept.keys }
        if let entry = other.withLock({ $0 }), entry.pipeline == pipeline { return entry.keys }
        let entry = Entry(pipeline: pipeline, keys: compute())
        other.withLock { $0 = entry }
        return entry.keys
    }
}

/// Numbers pipelines for ``RequestKeyMemo``: never reused within a process (an
/// `ObjectIdentifier` can be, once a pipeline is freed).
enum PipelineNumber {
    private static let counter = Atomic<UInt64>(0)

    static func next() -> UInt64 { counter.add(1, ordering: .relaxed).newValue }
}
