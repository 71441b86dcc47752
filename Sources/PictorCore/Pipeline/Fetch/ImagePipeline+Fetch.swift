import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The fetch stage: the one owner of the tiers below the memory cache. A fetch job per
/// ``FetchKey`` runs ``FetchStateMachine``'s actions: it reads and writes
/// ``Configuration/dataCache``, asks ``Configuration/dataLoader`` (conditionally, to
/// revalidate), and is shared by every caller of the same bytes.
extension ImagePipeline {
    /// Fetches the original bytes for `p`, shared per fetch key.
    ///
    /// - Parameter storesToDisk: whether this caller wants a download written to disk. The job
    ///   writes when its first caller wants it; a later caller that wants it and finds it not
    ///   written writes it itself, so callers that differ only there still share one download.
    nonisolated(nonsending) func fetch(
        _ p: PreparedRequest, _ key: FetchKey, priority: PriorityHandle, progress: (@Sendable (TransferProgress) -> Void)?,
        previews: (any PreviewTarget)? = nil, storesToDisk: Bool
    ) async throws -> (output: FetchOutput, joined: Bool) {
        var joined = false
        let output = try await fetches.value(
            for: key, priority: priority, progress: progress, preview: previews, joined: { joined = $0 }
        ) { [self] context in
            self.counters.withLock { $0.fetchesStarted += 1 }
            let start = ContinuousClock.now
            do {
                var output = try await self.runFetchJob(p, key, context, storesToDisk: storesToDisk)
                output.duration = (ContinuousClock.now - start).seconds
                return output
            } catch {
                if error is CancellationError || Task.isCancelled { throw CancellationError() }
                throw (error as? Error) ?? Error.loadingFailed(error)
            }
        }
        if joined {
            counters.withLock { $0.sharedRequests += 1 }
            // Only what the state machine allowed to be stored (never `no-store`, never a local file).
            if storesToDisk, output.isStorable, !output.storedToDisk,
               let cache = configuration.dataCache, !cache.contains(key.dataKey) {
                store(output.fetched, for: key.dataKey, in: cache)
            }
        }
        return (output, joined)
    }

    /// One fetch job: drives the state machine until it finishes.
    nonisolated(nonsending) private func runFetchJob(
        _ p: PreparedRequest, _ key: FetchKey, _ context: SharedWorkPool<FetchKey, FetchOutput>.Context, storesToDisk: Bool
    ) async throws -> FetchOutput {
        let cache = configuration.dataCache
        // Only HTTP(S) answers are shared: `file:` and `data:` URLs are read where they are.
        let shared = sharedTier.flatMap { tier in
            p.request.url?.scheme.map { $0.lowercased() == "http" || $0.lowercased() == "https" } == true ? tier : nil
        }
        var machine = makeFetchMachine(p, key, hasSharedTier: shared != nil)
        // The fleet's download lease, when this job took it: released however the job ends,
        // after the result is shared, so that waiters find it.
        var lease: SharedCacheLease?
        var action = machine.start()
        do {
            while true {
                switch action {
                case .readDisk:
                    action = machine.diskRead(cache?.entry(for: key.dataKey), now: configuration.now())
                case .readShared:
                    let entry = await shared?.entry(for: key.dataKey)
                    action = machine.sharedRead(entry, now: configuration.now())
                case .claimShared(let previous):
                    let claim = await shared?.claim(key.dataKey, previous: previous) ?? .unavailable
                    if case .leased(let taken) = claim { lease = taken }
                    action = machine.claimed(claim, now: configuration.now())
                case .awaitShared(let previous):
                    let entry = try await shared?.awaitHolder(of: key.dataKey, previous: previous)
                    action = machine.awaited(entry, now: configuration.now())
                case .load(let validators):
                    action = await load(p, validators: validators, context: context, shared: shared, machine: &machine)
                case .finish(let result, let write, let share):
                    let stored = cache.map { apply(write, of: result, for: key.dataKey, storesToDisk: storesToDisk, to: $0) } ?? false
                    if let target = result.redirectTarget {
                        if let cache { apply(target, storesToDisk: storesToDisk, to: cache) }
                        if target.shares {
                            await shared?.store(DataCacheEntry(data: target.data, metadata: target.metadata), for: target.key)
                        }
                    }
                    switch share {
                    case .store:
                        await shared?.store(DataCacheEntry(data: result.data, metadata: result.metadata), for: key.dataKey)
                    case .refused(let reason):
                        shared?.countNotShared(reason)
                    case .none:
                        break
                    }
                    if let lease { await shared?.release(lease) }
                    var output = FetchOutput(fetched: result, duration: 0, isStorable: write == .store, storedToDisk: stored)
                    if result.revalidatesInBackground, key.mode == .normal {
                        output.revalidation = startRevalidation(p, key, stale: result.data, storesToDisk: storesToDisk)
                    }
                    return output
                case .fail(let error):
                    // Wrapped as a loading failure once, by the caller (`fetch`).
                    throw error
                }
            }
        } catch {
            if let lease, let shared {
                // Let the waiters go at once rather than at the lease's expiry, even when this
                // task was cancelled.
                Task { await shared.release(lease) }
            }
            throw error
        }
    }

    // The synchronous parts of the job are kept out of line: what is inlined into an async
    // function can land in its task frame, and inlined they made the job's frame 38 KiB, a
    // fresh allocation per fetch (`pipeline.bookkeeping.instant-transport` in the benchmark
    // suite; the state machine's transitions are out of line for the same reason).
    @inline(never)
    private func makeFetchMachine(_ p: PreparedRequest, _ key: FetchKey, hasSharedTier: Bool) -> FetchStateMachine {
        var inputs = FetchStateMachine.Inputs(
            readsCaches: key.readsCaches, isCacheOnly: key.isCacheOnly, policy: configuration.httpCachePolicy,
            servesStaleOnError: configuration.servesStaleOnError, hasDiskCache: configuration.dataCache != nil,
            hasSharedTier: hasSharedTier,
            heuristicCap: configuration.maximumHeuristicLifetime, defaultLifetime: configuration.defaultFreshnessLifetime,
            request: cacheFacts(p),
            localScope: configuration.cacheScope)
        // The background revalidation asks the server; only a fetch that may start one
        // answers with a stale entry.
        inputs.servesWhileRevalidating = key.mode == .normal
        return FetchStateMachine(inputs)
    }

    /// Applies a finished job's disk write; returns whether the bytes were stored.
    @inline(never)
    private func apply(
        _ write: FetchStateMachine.CacheWrite, of result: FetchResult, for key: String, storesToDisk: Bool, to cache: any DataCaching
    ) -> Bool {
        switch write {
        case .store where storesToDisk:
            store(result, for: key, in: cache)
            return true
        case .updateMetadata:
            cache.updateMetadata(result.metadata, for: key)
            return false
        case .store, .none:
            return false
        }
    }

    /// Writes a redirect target's answer under the target's own key.
    @inline(never)
    private func apply(_ target: FetchResult.RedirectTargetWrite, storesToDisk: Bool, to cache: any DataCaching) {
        switch target.write {
        case .store where storesToDisk: cache.store(target.data, for: target.key, metadata: target.metadata)
        case .updateMetadata: cache.updateMetadata(target.metadata, for: target.key)
        case .store, .none: break
        }
    }

    /// Performs a `.load` action: one conditional or plain request through the data loader.
    /// When the machine lets redirect targets answer, each target the loader's redirect policy
    /// allows is first looked up under its own key in the disk cache, on the machine's rules.
    nonisolated(nonsending) private func load(
        _ p: PreparedRequest, validators: DataCacheMetadata?, context: SharedWorkPool<FetchKey, FetchOutput>.Context,
        shared: SharedTier?, machine: inout FetchStateMachine
    ) async -> FetchStateMachine.Action {
        var request = p.request.urlRequest
        if let etag = validators?.etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified = validators?.lastModified { request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }
        let requested = configuration.now()
        var options = DataLoadOptions(handle: context.priority, progress: context.reportProgress)
        // Previews only of a download someone above asked them of: never of cached bytes.
        let wanted = context.previews.wantedPreviews
        let previews = wanted.isEmpty ? nil : makePreviewProducer(p, context, kinds: wanted)
        defer { previews?.close() }
        if let previews { options.bodyReceived = { previews.received(offset: $0, $1) } }
        let probe = machine.redirectTargetRules.flatMap { redirectTargetProbe(p, rules: $0, shared: shared) }
        options.redirectTargets = probe?.lookup
        let observer = configuration.stageObserver
        let started = observer == nil ? nil : ContinuousClock.now
        do {
            let result = try await configuration.dataLoader.load(request, options: options)
            if let observer, let started { observer(.download, ContinuousClock.now - started) }
            // The last target looked up is the last redirect's when the successful attempt
            // followed any (an earlier attempt's lookups come before its own).
            let target = result.redirects.isEmpty ? nil : probe?.last
            if result.endsAtCachedTarget, target?.answer != .cached {
                return machine.loadFailed(FetchStateError(event: "a load ended at a redirect target nobody answered"), now: configuration.now())
            }
            return machine.loaded(
                result.data, response: result.loaded, redirects: result.redirects,
                exchange: .init(requested: requested, received: configuration.now()), target: target)
        } catch {
            if error is CancellationError || Task.isCancelled { return .fail(CancellationError()) }
            if let observer, let started { observer(.download, ContinuousClock.now - started) }
            return machine.loadFailed(error, now: configuration.now())
        }
    }

    /// The lookup of redirect targets for one load of `p`: each target's data key (the
    /// cache-key hook on the request the loader sends next), its disk entry and, when that
    /// does not answer, its `shared` tier entry, and `rules`' answer, the last one kept for the
    /// machine. `nil` without a disk cache.
    @inline(never)
    private func redirectTargetProbe(
        _ p: PreparedRequest, rules: FetchStateMachine.RedirectTargetRules, shared: SharedTier?
    ) -> RedirectTargetProbe? {
        guard let cache = configuration.dataCache else { return nil }
        let cacheKey = configuration.cacheKey
        let hashing = configuration.varyKeyHashing
        let now = configuration.now
        let asked = p.dataKey
        return RedirectTargetProbe { next in
            let key = cacheKey(ImageRequest(urlRequest: next))
            let isOwnKey = key.hasSameBytes(as: asked)
            let request = CacheRequestFacts(next, hashing: hashing)
            let target = rules.lookup(
                key: key, isOwnKey: isOwnKey, entry: isOwnKey ? nil : cache.entry(for: key), request: request, now: now())
            guard let shared, rules.asksShared(after: target) else { return target }
            let entry = await shared.entry(for: key)
            return rules.lookupShared(key: key, entry: entry, request: request, now: now()) ?? target
        }
    }

    /// The producer of one download's previews, delivered to the job's callers.
    @inline(never)
    private func makePreviewProducer(
        _ p: PreparedRequest, _ context: SharedWorkPool<FetchKey, FetchOutput>.Context, kinds: ImagePreviewKinds
    ) -> PreviewProducer {
        var options = configuration.decodingOptions
        options.thumbnail = p.thumbnail
        return PreviewProducer(
            decoder: configuration.decoder, options: options, kinds: kinds, interval: configuration.previewInterval, queue: decodeQueue,
            priority: context.priority, now: configuration.monotonicNow, sink: context.previews)
    }

    private func store(_ result: FetchResult, for key: String, in cache: any DataCaching) {
        cache.store(result.data, for: key, metadata: result.metadata)
    }
}

extension FetchResult {
    /// The layer reported for these bytes.
    var layer: CacheLayer {
        switch source {
        case .network: .network
        case .shared: .shared
        case .disk: .disk
        case .revalidated: revalidatedTier
        }
    }
}

/// One load's lookups of redirect targets: answers the loader
/// (``DataLoadOptions/redirectTargets``) and keeps the last target found for the fetch state
/// machine.
final class RedirectTargetProbe: Sendable {
    private let find: @Sendable (URLRequest) async -> FetchStateMachine.RedirectTarget
    private let found = Mutex<FetchStateMachine.RedirectTarget?>(nil)

    init(_ find: @escaping @Sendable (URLRequest) async -> FetchStateMachine.RedirectTarget) {
        self.find = find
    }

    /// The last target looked up.
    var last: FetchStateMachine.RedirectTarget? { found.withLock { $0 } }

    /// The loader's lookup.
    var lookup: RedirectTargetLookup {
        { [self] next in
            let target = await find(next)
            found.withLock { $0 = target }
            return target.answer
        }
    }
}
