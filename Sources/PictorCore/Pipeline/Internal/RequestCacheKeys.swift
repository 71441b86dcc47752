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
/// The keys are kept for one pipeline at a time (the last one that asked): a request used with
/// another pipeline, whose hook may differ, computes them again. The hook runs outside the lock.
final class RequestKeyMemo: Sendable {
    private let kept = Mutex<(pipeline: UInt64, keys: RequestCacheKeys)?>(nil)

    init() {}

    /// The keys for the pipeline numbered `pipeline`, computed with `compute` when not kept.
    func keys(for pipeline: UInt64, compute: () -> RequestCacheKeys) -> RequestCacheKeys {
        if let hit = kept.withLock({ $0?.pipeline == pipeline ? $0?.keys : nil }) { return hit }
        let keys = compute()
        kept.withLock { $0 = (pipeline, keys) }
        return keys
    }
}

/// Numbers pipelines for ``RequestKeyMemo``: never reused within a process (an
/// `ObjectIdentifier` can be, once a pipeline is freed).
enum PipelineNumber {
    private static let counter = Atomic<UInt64>(0)

    static func next() -> UInt64 { counter.add(1, ordering: .relaxed).newValue }
}
