import Foundation
import Synchronization

/// Background revalidation of stale bytes served at once (`stale-while-revalidate`, or
/// ``ImagePipeline/HTTPCachePolicy/returnCachedThenRevalidate``): the fetch state machine
/// answers with the stale entry and marks the result
/// (``FetchResult/revalidatesInBackground``); the fetch job then starts one fetch of the
/// same data key in ``FetchKey/Mode/revalidate`` mode, in the same pool as every fetch, so
/// that concurrent stale answers and requests share it (one conditional request, never a
/// second download). Its result is stored in the tiers as any fetch's; when its bytes differ
/// from the stale ones, each load that served them decodes and processes the new bytes once,
/// replaces its memory-cache entry and announces the new image to its tasks
/// (``ImageTask/Event/updated(_:)``).
extension ImagePipeline {
    /// Starts the background revalidation of `stale`, served at once for `p`'s fetch `key`.
    @inline(never)
    func startRevalidation(_ p: PreparedRequest, _ key: FetchKey, stale: Data, storesToDisk: Bool) -> FetchRevalidation {
        let revalidating = FetchKey(dataKey: key.dataKey, mode: .revalidate)
        let task = backgroundWork.start { [self] () -> FetchOutput? in
            do {
                return try await self.fetch(
                    p, revalidating, priority: PriorityHandle.fixed(.low), progress: nil, storesToDisk: storesToDisk
                ).output
            } catch {
                self.log(.info, p.request, "background revalidation failed: \(error)")
                return nil
            }
        }
        return FetchRevalidation(stale: stale, task: task)
    }

    /// Starts making `p`'s image again from the bytes `revalidation` brings, when they
    /// changed: decoded, processed, stored in memory (replacing the stale image) and as a
    /// processed variant by policy.
    @inline(never)
    func startImageRevalidation(_ p: PreparedRequest, after revalidation: FetchRevalidation) -> ImageRevalidation {
        let task = backgroundWork.start { [self] () -> ImageResponse? in
            guard let fetched = await revalidation.changed() else { return nil }
            let priority = PriorityHandle.fixed(.low)
            do {
                var output = try await self.decode(fetched, p, priority: priority)
                for processor in p.processors {
                    output = try await self.process(output, with: processor, priority: priority)
                }
                await self.store(output.image, p, writesVariant: true, original: output.original, priority: priority)
                self.log(.debug, p.request, "replaced by its background revalidation")
                return ImageResponse(
                    image: output.image, request: p.request, cacheLayer: output.layer, isRevalidated: output.isRevalidated,
                    isStaleOnArrival: output.isStaleOnArrival, urlResponse: output.urlResponse, metrics: output.metrics)
            } catch {
                self.log(.info, p.request, "the image from the background revalidation failed: \(error)")
                return nil
            }
        }
        return ImageRevalidation(task: task)
    }

    /// Waits until every background revalidation started so far has ended, with the images
    /// made from what it brought stored (and each task told). A command that exits after its
    /// last response calls it first, so that a stale answer's revalidation still refreshes
    /// the caches; nothing else needs to.
    public func waitForBackgroundRevalidations() async {
        await backgroundWork.waitForAll()
    }
}

/// A fetch's background revalidation: its output when it brought bytes other than the stale
/// ones it was started for.
final class FetchRevalidation: Sendable {
    private let stale: Data
    private let task: Task<FetchOutput?, Never>

    init(stale: Data, task: Task<FetchOutput?, Never>) {
        self.stale = stale
        self.task = task
    }

    /// The revalidation's output when its bytes differ from the stale ones; `nil` after a
    /// 304, the same bytes, or a failure.
    func changed() async -> FetchOutput? {
        guard let output = await task.value, output.fetched.data != stale else { return nil }
        return output
    }
}

/// A load's image made again after its bytes' background revalidation: the new response, or
/// `nil` when nothing changed.
final class ImageRevalidation: Sendable {
    private let task: Task<ImageResponse?, Never>

    init(task: Task<ImageResponse?, Never>) { self.task = task }

    /// The new image's response, when the bytes changed and it was made.
    var updated: ImageResponse? {
        get async { await task.value }
    }
}

/// Work a pipeline starts that no caller waits for (background revalidations), tracked so
/// that ``ImagePipeline/waitForBackgroundRevalidations()`` can wait for it.
final class BackgroundWork: Sendable {
    private struct State {
        var next = 0
        var running: [Int: @Sendable () async -> Void] = [:]
    }
    private let state = Mutex(State())

    /// Starts `body` in a new task, tracked until it ends.
    func start<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) -> Task<Value, Never> {
        state.withLock { s in
            let id = s.next
            s.next += 1
            let task = Task { [self] in
                let value = await body()
                state.withLock { _ = $0.running.removeValue(forKey: id) }
                return value
            }
            s.running[id] = { _ = await task.value }
            return task
        }
    }

    /// Waits until no tracked work runs, including work started meanwhile.
    func waitForAll() async {
        while true {
            let running = state.withLock { Array($0.running.values) }
            if running.isEmpty { return }
            for wait in running { await wait() }
        }
    }
}
