import Foundation

/// The one place that decides which tier answers a fetch of original bytes: the disk cache,
/// then the shared fleet tier, then the network; with HTTP freshness, revalidation, serving
/// stale on error (bounded by `stale-if-error`), serving stale while the runner revalidates in
/// the background (`stale-while-revalidate`, ``ImagePipeline/HTTPCachePolicy/returnCachedThenRevalidate``),
/// and the fleet's download leases. Each tier follows the ``CacheRules`` of its
/// kind: the local disk those of ``Inputs/localScope`` (private by default), the shared tier
/// always those of a shared cache. No I/O: every transition takes what the last action produced
/// and returns the next action, so the rules are unit-tested without a disk, a Redis or a
/// server, and ``ImagePipeline``'s fetch job only performs the actions.
struct FetchStateMachine {
    /// What a fetch may do, fixed when it starts.
    struct Inputs: Sendable {
        /// Read the caches (false for a reload).
        var readsCaches: Bool
        /// Never use the network.
        var isCacheOnly: Bool
        /// The HTTP cache policy.
        var policy: ImagePipeline.HTTPCachePolicy
        /// Serve a stale entry when revalidation fails with a transient error.
        var servesStaleOnError: Bool
        /// Answer with a stale entry the rules let stand in while it is revalidated
        /// (``CacheRules/servesWhileRevalidating(_:now:)``), and have the runner revalidate it
        /// in the background; false for that background fetch itself, which asks the server.
        var servesWhileRevalidating = true
        /// Whether a local disk cache is configured.
        var hasDiskCache: Bool = true
        /// Whether a shared fleet tier sits between the disk and the network.
        var hasSharedTier: Bool
        /// Cap of the heuristic freshness lifetime, in seconds.
        var heuristicCap: Double
        /// Freshness of a response with neither freshness nor validators, in seconds; `nil`
        /// leaves it stale.
        var defaultLifetime: Double? = nil
        /// The request's credentials and header values, for `Vary` and the shared rules.
        var request = CacheRequestFacts()
        /// The kind of cache the local disk is.
        var localScope: CacheScope = .private
    }

    /// Where the bytes of a finished fetch come from.
    enum Source: Sendable, Equatable {
        /// A disk entry served without any request (fresh, cache-only, or stale after an error).
        case disk
        /// A cached entry confirmed by the server (HTTP 304).
        case revalidated
        /// The shared fleet tier (fresh, written by another process's download, or stale after
        /// an error).
        case shared
        /// A full network download (or a `file:`/`data:` read).
        case network
    }

    /// What to write to the disk cache as the fetch finishes.
    enum CacheWrite: Sendable, Equatable {
        /// Nothing.
        case none
        /// Store the bytes with the result's metadata.
        case store
        /// Replace the stored entry's metadata (after a 304).
        case updateMetadata
    }

    /// What to do with the shared tier as the fetch finishes.
    enum SharedWrite: Sendable, Equatable {
        /// Nothing (no shared tier, or the bytes came from it).
        case none
        /// Store the result.
        case store
        /// The shared rules refuse it (counted by the tier when `private` or `authorized`).
        case refused(CacheRules.Refusal)
    }

    /// What the fetch stage found for the last redirect target the loader reached, under the
    /// target's own key (``RedirectTargetRules/lookup(key:isOwnKey:entry:request:now:)``).
    struct RedirectTarget: Sendable {
        /// The target's data key (the cache-key hook's result for the target's URL).
        let key: String
        /// The target's own entry, when it answers (fresh) or gave the validators sent.
        let entry: DataCacheEntry?
        /// The target's request, as the cache rules see it (`Vary`, credentials).
        let request: CacheRequestFacts
        /// What the loader was told.
        let answer: RedirectTargetAnswer
        /// Whether the target's answer may be kept under its key: not when that key is the one
        /// asked for (a cache-key hook that gives both URLs one key), whose entry stands for
        /// the whole chain.
        let hasOwnKey: Bool
        /// Whether ``entry`` came from the shared tier (else from the local disk).
        var isShared = false
    }

    /// How a redirect target's own entry answers while the loader follows a chain, on the
    /// rules of the local disk: a fresh entry ends the load at that hop (nothing downloaded);
    /// a stale one with validators makes the target's request conditional; anything else
    /// (missing, for other `Vary` values, stale without validators) requests the target. When
    /// the disk has no fresh entry and there is a shared tier, the tier's entry, fresh on the
    /// shared rules, ends the load too (``lookupShared(key:entry:request:now:)``).
    struct RedirectTargetRules: Sendable {
        let rules: CacheRules
        /// The shared tier's rules, when there is one.
        let sharedRules: CacheRules?

        /// Whether the shared tier is asked about a target the disk answered `target`.
        func asksShared(after target: RedirectTarget) -> Bool {
            sharedRules != nil && target.hasOwnKey && target.answer != .cached
        }

        /// The answer of the shared tier's `entry` for the target with data key `key`: a fresh
        /// entry that may answer `request` ends the load; anything else is no answer (`nil`:
        /// the disk's stands).
        func lookupShared(key: String, entry: DataCacheEntry?, request: CacheRequestFacts, now: Date) -> RedirectTarget? {
            guard let sharedRules, let entry, sharedRules.matches(entry.metadata, request),
                  sharedRules.isFresh(entry.metadata, now: now) else { return nil }
            return RedirectTarget(key: key, entry: entry, request: request, answer: .cached, hasOwnKey: true, isShared: true)
        }

        /// The answer for the target with data key `key`, whose entry is `entry`, asked for by
        /// `request` at `now`. `isOwnKey`: the key is the one asked for, so its entry is not
        /// the target's own (it stands for the chain): the target is requested.
        func lookup(key: String, isOwnKey: Bool, entry: DataCacheEntry?, request: CacheRequestFacts, now: Date) -> RedirectTarget {
            func answer(_ answer: RedirectTargetAnswer, _ entry: DataCacheEntry? = nil) -> RedirectTarget {
                RedirectTarget(key: key, entry: entry, request: request, answer: answer, hasOwnKey: !isOwnKey)
            }
            guard !isOwnKey, let entry, rules.matches(entry.metadata, request) else { return answer(.request) }
            if rules.isFresh(entry.metadata, now: now) { return answer(.cached, entry) }
            guard FetchStateMachine.hasValidators(entry) else { return answer(.request) }
            return answer(.revalidate(etag: entry.metadata.etag, lastModified: entry.metadata.lastModified), entry)
        }
    }

    /// The next thing to do.
    enum Action: Sendable {
        /// Read the disk cache, then call ``diskRead(_:now:)``.
        case readDisk
        /// Read the shared tier, then call ``sharedRead(_:now:)``.
        case readShared
        /// Take the shared tier's download lease (an entry other than `previous` found meanwhile
        /// is served instead), then call ``claimed(_:)``.
        case claimShared(previous: DataCacheEntry?)
        /// Wait for the lease holder's result (an entry other than `previous`), then call
        /// ``awaited(_:)``.
        case awaitShared(previous: DataCacheEntry?)
        /// Load from the network, conditional on these validators when given, then call
        /// ``loaded(_:response:redirects:exchange:)`` or ``loadFailed(_:now:)``.
        case load(validators: DataCacheMetadata?)
        /// Done: deliver this result after applying `write` to the disk cache and `share` to
        /// the shared tier.
        case finish(FetchResult, write: CacheWrite, share: SharedWrite)
        /// Done: fail.
        case fail(any Error)
    }

    /// A cached entry kept for revalidation, and which tier it came from.
    ///
    /// A class, immutable: the machine's state is copied at every transition, and an entry held
    /// inline made each copy a few hundred bytes (`pipeline.bookkeeping.instant-transport` in
    /// the benchmark suite).
    private final class Stale {
        let entry: DataCacheEntry
        let onDisk: Bool
        /// Whether the request in flight carries the entry's validators, so that a 304 may
        /// confirm it (a request sent without them after a 304 named another representation).
        let isConditional: Bool

        init(entry: DataCacheEntry, onDisk: Bool, isConditional: Bool = true) {
            self.entry = entry
            self.onDisk = onDisk
            self.isConditional = isConditional
        }
    }

    private enum State {
        case idle
        case readingDisk
        case readingShared(stale: Stale?)
        /// `found` is what the shared tier had (stale), so a wait can tell a new result from it.
        /// Indirect, so that an entry held here does not make every state that size.
        indirect case claiming(stale: Stale?, found: DataCacheEntry?)
        case awaiting(stale: Stale?)
        /// Waiting on the network; `stale`'s validators were sent when it has any.
        case loading(stale: Stale?)
        case finished
    }

    let inputs: Inputs
    /// The rules of the local disk.
    private let localRules: CacheRules
    /// The rules of the shared tier.
    private let sharedRules: CacheRules
    private var state = State.idle
    /// Whether the load in flight may be answered by a redirect target's own entry: not for a
    /// reload, not under ``ImagePipeline/HTTPCachePolicy/ignoreHTTPHeaders`` (the entry asked
    /// for never expires), and not again after a target's 304 that confirmed nothing.
    private var targetsMayAnswer = true

    /// The rules a redirect target's own entry answers by, when the load in flight may be
    /// answered so (``RedirectTargetRules``); `nil` otherwise.
    var redirectTargetRules: RedirectTargetRules? {
        guard case .loading = state, targetsMayAnswer, inputs.readsCaches, inputs.hasDiskCache, inputs.policy.followsHTTPHeaders else {
            return nil
        }
        return RedirectTargetRules(rules: localRules, sharedRules: inputs.hasSharedTier ? sharedRules : nil)
    }

    @inline(never)
    init(_ inputs: Inputs) {
        self.inputs = inputs
        localRules = CacheRules(scope: inputs.localScope, policy: inputs.policy)
        sharedRules = CacheRules(scope: .shared, policy: inputs.policy)
    }

    /// The first action.
    @inline(never)
    mutating func start() -> Action {
        guard case .idle = state else { return invalid("start") }
        if inputs.readsCaches && inputs.hasDiskCache {
            state = .readingDisk
            return .readDisk
        }
        return afterDisk(stale: nil)
    }

    /// The disk read gave `entry` (or nothing) at `now`.
    @inline(never)
    mutating func diskRead(_ entry: DataCacheEntry?, now: Date) -> Action {
        guard case .readingDisk = state else { return invalid("diskRead") }
        // An entry stored for other `Vary` values is not this request's: a miss.
        let entry = entry.flatMap { localRules.matches($0.metadata, inputs.request) ? $0 : nil }
        if let entry, inputs.isCacheOnly || localRules.isFresh(entry.metadata, now: now) {
            return finish(.finish(FetchResult(data: entry.data, source: .disk, metadata: entry.metadata), write: .none, share: .none))
        }
        // Stale, but allowed to answer now (`stale-while-revalidate`, or the policy): served as
        // it is, the shared tier and the origin are asked by the background revalidation.
        if let entry, inputs.servesWhileRevalidating, localRules.servesWhileRevalidating(entry.metadata, now: now) {
            let result = FetchResult(data: entry.data, source: .disk, metadata: entry.metadata, revalidatesInBackground: true)
            return finish(.finish(result, write: .none, share: .none))
        }
        return afterDisk(stale: entry.map { Stale(entry: $0, onDisk: true) })
    }

    /// The shared tier gave `entry` (or nothing, or an error treated as nothing) at `now`.
    @inline(never)
    mutating func sharedRead(_ entry: DataCacheEntry?, now: Date) -> Action {
        guard case .readingShared(let stale) = state else { return invalid("sharedRead") }
        let entry = sharedEntry(entry)
        if let entry, inputs.isCacheOnly || sharedRules.isFresh(entry.metadata, now: now) {
            return serveShared(entry)
        }
        // Stale on the shared rules but allowed to answer now: kept locally as it is (stale),
        // and revalidated in the background.
        if let entry, inputs.servesWhileRevalidating, sharedRules.servesWhileRevalidating(entry.metadata, now: now) {
            return serveShared(entry, revalidatesInBackground: true)
        }
        if inputs.isCacheOnly { return finish(.fail(DataLoadingError.notCached)) }
        // A request with credentials downloads for itself: its answer is shared only when the
        // response allows it, so the fleet is not made to wait on it.
        if inputs.request.isAuthorized {
            return load(stale: stale ?? entry.map { Stale(entry: $0, onDisk: false) })
        }
        state = .claiming(stale: stale ?? entry.map { Stale(entry: $0, onDisk: false) }, found: entry)
        return .claimShared(previous: entry)
    }

    /// Taking the download lease gave `claim` at `now` (the runner keeps a lease it took, to
    /// release it).
    @inline(never)
    mutating func claimed(_ claim: SharedTier.Claim, now: Date) -> Action {
        guard case .claiming(let stale, let found) = state else { return invalid("claimed") }
        switch claim {
        case .heldElsewhere:
            state = .awaiting(stale: stale)
            return .awaitShared(previous: found)
        case .stored(let entry):
            return afterWaiting(for: entry, stale: stale, now: now)
        case .leased, .unavailable:
            return load(stale: stale)
        }
    }

    /// The wait for another process's download gave `entry` at `now`, or nothing (it failed,
    /// stored nothing, or the wait bound passed).
    @inline(never)
    mutating func awaited(_ entry: DataCacheEntry?, now: Date) -> Action {
        guard case .awaiting(let stale) = state else { return invalid("awaited") }
        return afterWaiting(for: entry, stale: stale, now: now)
    }

    /// What another process stored meanwhile answers this request on the shared rules like
    /// any entry (RFC 9111 §4: a response shared with waiting requests must be reusable for
    /// them): served while fresh; stale (`no-cache`, `max-age=0`, `s-maxage=0`), it is
    /// revalidated; for other `Vary` values, or one with credentials it does not allow, it is
    /// no answer at all.
    private mutating func afterWaiting(for entry: DataCacheEntry?, stale: Stale?, now: Date) -> Action {
        guard let entry = sharedEntry(entry) else { return load(stale: stale) }
        if sharedRules.isFresh(entry.metadata, now: now) { return serveShared(entry) }
        return load(stale: Stale(entry: entry, onDisk: false))
    }

    /// The network answered: `data` (empty for a 304) and `response`, after following
    /// `redirects` (their heads, in order). `target`: what the last redirect's target's own
    /// entry said (``redirectTargetRules``), when it was looked up; with
    /// ``RedirectTargetAnswer/cached`` the load ended at that redirect, `data` is empty and
    /// `response` is the redirect.
    @inline(never)
    mutating func loaded(
        _ data: Data, response: LoadedResponse, redirects: [HTTPResponseHead], exchange: HTTPFreshness.Exchange,
        target: RedirectTarget? = nil
    ) -> Action {
        guard case .loading(let stale) = state else { return invalid("loaded") }
        let http = response.head
        if let target, !redirects.isEmpty, let answered = answeredByTarget(
            target, response: response, redirects: redirects, exchange: exchange, stale: stale) {
            return answered
        }
        if let stale, http?.statusCode == 304, stale.isConditional, Self.hasValidators(stale.entry) {
            // A 304 whose validators name another representation than the stored one confirms
            // nothing (RFC 9111 §4.3.4): ask again without validators. The entry is kept to stand
            // in for a failure of that request, never to answer a second 304.
            if let http, !Self.confirms(http, stale.entry.metadata) {
                return load(stale: Stale(entry: stale.entry, onDisk: stale.onDisk, isConditional: false))
            }
            var metadata = HTTPFreshness.refreshed(stale.entry.metadata, with: http, exchange: exchange, heuristicCap: inputs.heuristicCap)
            metadata.varyKey = metadata.vary.flatMap { inputs.request.varyKey(for: $0) }
            let storable = localRules.refusal(toStore: metadata, for: inputs.request) == nil
            let result = FetchResult(
                data: stale.entry.data, source: .revalidated, response: response, metadata: metadata,
                revalidatedTier: stale.onDisk ? .disk : .shared,
                isStaleOnArrival: storable && isStaleOnArrival(metadata, at: exchange.received))
            let write: CacheWrite = storable ? (stale.onDisk ? .updateMetadata : .store) : .none
            return finish(.finish(result, write: write, share: shareAction(metadata)))
        }
        // The loader judged the status (``DataLoading/load(_:options:)``); what is left is a 304
        // with no stored entry it could confirm, which stands for no bytes at all.
        guard http?.statusCode != 304, !data.isEmpty else {
            return finish(.fail(http?.statusCode == 304 ? DataLoadingError.statusCode(304) : DataLoadingError.emptyBody))
        }
        let own = HTTPFreshness.metadata(
            for: http, data: data, exchange: exchange, heuristicCap: inputs.heuristicCap,
            defaultLifetime: inputs.policy.followsHTTPHeaders ? inputs.defaultLifetime : nil)
        // Stored under the URL asked for, the entry stands for the redirects too.
        let chained = inputs.policy == .ignoreHTTPHeaders ? own
            : HTTPFreshness.metadata(own, throughRedirects: redirects, exchange: exchange, heuristicCap: inputs.heuristicCap)
        var metadata = chained ?? own
        // A `no-store` redirect makes the whole chain unstorable: the result says so, so that
        // nothing made from it (a processed variant, which inherits these headers) is kept.
        if chained == nil { metadata.cacheControl = "no-store" }
        metadata.varyKey = metadata.vary.flatMap { inputs.request.varyKey(for: $0) }
        // Only HTTP answers are cached (`file:` and `data:` are read each time); each tier's
        // rules say whether this one may be.
        guard http != nil else {
            return finish(.finish(FetchResult(data: data, source: .network, response: response, metadata: metadata), write: .none, share: .none))
        }
        let storable = refusal(of: metadata, redirects: redirects, under: localRules) == nil
        let result = FetchResult(
            data: data, source: .network, response: response, metadata: metadata,
            isStaleOnArrival: storable && isStaleOnArrival(metadata, at: exchange.received),
            redirectTarget: redirects.isEmpty ? nil : target.flatMap { targetWrite($0, data: data, metadata: own, write: .store) })
        return finish(.finish(result, write: storable ? .store : .none, share: shareAction(metadata, redirects: redirects)))
    }

    /// The finish when the last redirect's target answered from its own entry: fresh (the load
    /// ended at the redirect), or confirmed by a `304` to its own validators. `nil` when the
    /// answer is the target's download, handled as any download. The bytes are the target's
    /// entry; the URL asked for gets them with the chain's metadata (``HTTPFreshness/metadata(_:throughRedirects:exchange:heuristicCap:)``),
    /// written only when they differ from its stored bytes (else its metadata is updated).
    private mutating func answeredByTarget(
        _ target: RedirectTarget, response: LoadedResponse, redirects: [HTTPResponseHead], exchange: HTTPFreshness.Exchange,
        stale: Stale?
    ) -> Action? {
        guard let entry = target.entry else { return nil }
        let http = response.head
        var own = entry.metadata
        var targetWrite: FetchResult.RedirectTargetWrite?
        switch target.answer {
        case .cached where target.isShared:
            // Kept on the local disk as the tier gave it, as any shared hit.
            targetWrite = target.hasOwnKey && localWrite(own) == .store
                ? FetchResult.RedirectTargetWrite(key: target.key, data: entry.data, metadata: own, write: .store, shares: false)
                : nil
        case .cached:
            break
        case .revalidate where http?.statusCode == 304:
            guard let http, Self.confirms(http, entry.metadata) else {
                // A 304 naming another representation confirms nothing (RFC 9111 §4.3.4): the
                // chain is asked again, its target without validators.
                targetsMayAnswer = false
                return load(stale: stale)
            }
            own = HTTPFreshness.refreshed(entry.metadata, with: http, exchange: exchange, heuristicCap: inputs.heuristicCap)
            own.varyKey = own.vary.flatMap { target.request.varyKey(for: $0) }
            targetWrite = self.targetWrite(target, data: entry.data, metadata: own, write: .updateMetadata)
        case .request, .revalidate:
            return nil
        }
        let chained = HTTPFreshness.metadata(own, throughRedirects: redirects, exchange: exchange, heuristicCap: inputs.heuristicCap)
        var metadata = chained ?? own
        if chained == nil { metadata.cacheControl = "no-store" }
        metadata.varyKey = metadata.vary.flatMap { inputs.request.varyKey(for: $0) }
        let storable = chained != nil && refusal(of: metadata, redirects: redirects, under: localRules) == nil
        let write: CacheWrite
        if !storable {
            write = .none
        } else if let stale, stale.onDisk, stale.entry.data == entry.data {
            write = .updateMetadata
        } else {
            write = .store
        }
        let revalidated = target.answer != .cached
        let result = FetchResult(
            data: entry.data, source: revalidated ? .revalidated : target.isShared ? .shared : .disk,
            response: revalidated ? response : nil,
            metadata: metadata, revalidatedTier: .disk,
            isStaleOnArrival: revalidated && storable && isStaleOnArrival(metadata, at: exchange.received),
            redirectTarget: targetWrite)
        // The URL asked for is not shared again for an answer that downloaded nothing; the
        // target's refreshed entry is.
        return finish(.finish(result, write: write, share: .none))
    }

    /// What is written under `target`'s own key: its answer with its own `metadata` (its
    /// validators and freshness), when it has a key of its own and each tier's rules allow it
    /// for the target's request.
    private func targetWrite(
        _ target: RedirectTarget, data: Data, metadata: DataCacheMetadata, write: CacheWrite
    ) -> FetchResult.RedirectTargetWrite? {
        guard target.hasOwnKey, inputs.policy.followsHTTPHeaders else { return nil }
        var metadata = metadata
        metadata.varyKey = metadata.vary.flatMap { target.request.varyKey(for: $0) }
        let local = localRules.refusal(toStore: metadata, for: target.request) == nil ? write : .none
        let shares = inputs.hasSharedTier && sharedRules.refusal(toStore: metadata, for: target.request) == nil
        guard local != .none || shares else { return nil }
        return FetchResult.RedirectTargetWrite(key: target.key, data: data, metadata: metadata, write: local, shares: shares)
    }

    /// The network failed with `error` at `now`: a stale entry stands in when the error is
    /// transient, ``Inputs/servesStaleOnError`` allows it and the entry's tier's rules do
    /// (``CacheRules/servesStale(_:now:)``: `stale-if-error=N` bounds how long).
    @inline(never)
    mutating func loadFailed(_ error: any Error, now: Date) -> Action {
        guard case .loading(let stale) = state else { return invalid("loadFailed") }
        if let stale, inputs.servesStaleOnError, let loading = error as? DataLoadingError, loading.isTransient,
           (stale.onDisk ? localRules : sharedRules).servesStale(stale.entry.metadata, now: now) {
            let result = FetchResult(data: stale.entry.data, source: stale.onDisk ? .disk : .shared, metadata: stale.entry.metadata)
            // A shared entry is kept locally as it is (stale), so the next use of this host
            // revalidates it instead of reading the tier again.
            return finish(.finish(result, write: stale.onDisk ? .none : localWrite(stale.entry.metadata), share: .none))
        }
        return finish(.fail(error))
    }

    /// Done with an entry from the shared tier: delivered, and written to the local disk (never
    /// back to the tier it came from).
    private mutating func serveShared(_ entry: DataCacheEntry, revalidatesInBackground: Bool = false) -> Action {
        let result = FetchResult(
            data: entry.data, source: .shared, metadata: entry.metadata, revalidatesInBackground: revalidatesInBackground)
        return finish(.finish(result, write: localWrite(entry.metadata), share: .none))
    }

    /// `entry` when it may answer this request under the shared rules (its `Vary` values are
    /// the request's; a request with credentials only gets an entry that allows it).
    private func sharedEntry(_ entry: DataCacheEntry?) -> DataCacheEntry? {
        entry.flatMap { sharedRules.matches($0.metadata, inputs.request) ? $0 : nil }
    }

    /// Whether bytes with `metadata` are written to the local disk.
    private func localWrite(_ metadata: DataCacheMetadata) -> CacheWrite {
        localRules.refusal(toStore: metadata, for: inputs.request) == nil ? .store : .none
    }

    /// What the shared tier does with a result stored with `metadata`, reached through
    /// `redirects`.
    private func shareAction(_ metadata: DataCacheMetadata, redirects: [HTTPResponseHead] = []) -> SharedWrite {
        guard inputs.hasSharedTier else { return .none }
        return refusal(of: metadata, redirects: redirects, under: sharedRules).map { .refused($0) } ?? .store
    }

    /// Why `rules` refuse a result stored with `metadata` that came through `redirects` (the
    /// first reason in ``CacheRules/Refusal``'s order over the whole chain). A redirect to a URL
    /// with credentials makes the rest of the chain a request with credentials.
    private func refusal(of metadata: DataCacheMetadata, redirects: [HTTPResponseHead], under rules: CacheRules) -> CacheRules.Refusal? {
        var request = inputs.request
        var refusals: [CacheRules.Refusal] = []
        for hop in redirects {
            if let refusal = rules.refusal(ofRedirect: hop, for: request) { refusals.append(refusal) }
            if let location = hop.value(forHTTPHeaderField: "Location"), let target = URL(string: location),
               target.user != nil || target.password != nil {
                request.credentialsAddedByRedirect = true
            }
        }
        if let refusal = rules.refusal(toStore: metadata, for: request) { refusals.append(refusal) }
        return refusals.min()
    }

    /// Whether the origin's answer, stored with `metadata`, is stale the moment it is received
    /// (so every later use asks the server again); never under ``ImagePipeline/HTTPCachePolicy/ignoreHTTPHeaders``.
    private func isStaleOnArrival(_ metadata: DataCacheMetadata, at received: Date) -> Bool {
        !localRules.isFresh(metadata, now: received)
    }

    /// After the disk tier: the shared tier, else the network (unless cache-only).
    private mutating func afterDisk(stale: Stale?) -> Action {
        if inputs.readsCaches && inputs.hasSharedTier {
            state = .readingShared(stale: stale)
            return .readShared
        }
        if inputs.isCacheOnly { return finish(.fail(DataLoadingError.notCached)) }
        return load(stale: stale)
    }

    private mutating func load(stale: Stale?) -> Action {
        state = .loading(stale: stale)
        return .load(validators: stale.flatMap { $0.isConditional && Self.hasValidators($0.entry) ? $0.entry.metadata : nil })
    }

    /// Whether a 304 with `head` selects the entry stored with `stored` (RFC 9111 §4.3.4): its
    /// `ETag`, when it sends one, is the stored one (weak comparison: a `W/` prefix aside, the
    /// same opaque tag); without an `ETag`, its `Last-Modified`, when both have one, is the
    /// stored date. A 304 that sends neither confirms what was asked about.
    static func confirms(_ head: HTTPResponseHead, _ stored: DataCacheMetadata) -> Bool {
        func opaque(_ tag: String) -> Substring {
            let trimmed = tag.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : Substring(trimmed)
        }
        if let sent = head.value(forHTTPHeaderField: "ETag") {
            guard let etag = stored.etag else { return false }
            return opaque(sent) == opaque(etag)
        }
        if let sent = head.value(forHTTPHeaderField: "Last-Modified"), let date = stored.lastModified {
            guard let sentDate = HTTPDate.parse(sent), let storedDate = HTTPDate.parse(date) else { return sent == date }
            return sentDate == storedDate
        }
        return true
    }

    fileprivate static func hasValidators(_ entry: DataCacheEntry) -> Bool {
        entry.metadata.etag != nil || entry.metadata.lastModified != nil
    }

    private mutating func finish(_ action: Action) -> Action {
        state = .finished
        // Bytes that visibly end before the image does are written to no tier, whatever their
        // headers say: a decode may deliver what they hold (an animation's complete frames),
        // but a later request must not be served a partial file as the image.
        if case .finish(let result, let write, let share) = action,
           write == .store || share == .store || result.redirectTarget != nil, Self.isCut(result) {
            return .finish(result.withoutRedirectTarget, write: write == .store ? .none : write, share: share == .store ? .none : share)
        }
        return action
    }

    /// Whether `result`'s bytes end before the image they start does
    /// (``FileStructure/isTruncated(_:format:)``).
    private static func isCut(_ result: FetchResult) -> Bool {
        guard let format = result.metadata.format ?? ImageFormat.sniff(result.data) else { return false }
        return FileStructure.isTruncated(result.data, format: format)
    }

    private mutating func invalid(_ event: String) -> Action {
        state = .finished
        return .fail(ImagePipeline.Error.loadingFailed(FetchStateError(event: event)))
    }
}

/// A transition called in a state that does not expect it: a programming error in the fetch
/// job, reported as a failed request rather than a crash.
struct FetchStateError: Error, CustomStringConvertible {
    let event: String
    var description: String { "fetch state machine: unexpected \(event)" }
}

/// The bytes a fetch delivers, validated as an image, with where they came from.
///
/// A class, immutable: a result passes through the action that finishes the job, the job's
/// output, every subscriber's continuation and the response, and as a struct each of those
/// copies retained every field of its metadata (`pipeline.bookkeeping.instant-transport` in
/// the benchmark suite).
final class FetchResult: Sendable {
    let data: Data
    let source: FetchStateMachine.Source
    let response: LoadedResponse?
    let metadata: DataCacheMetadata
    /// For a revalidated result, the tier that held the confirmed entry.
    let revalidatedTier: CacheLayer
    /// Whether the origin's answer (a storable download or a 304) was already stale when it
    /// arrived: its entry is kept, but every later use asks the server first.
    let isStaleOnArrival: Bool
    /// For an answer reached through redirects: what is written under the last target's own
    /// key, beside what is written under the key asked for.
    let redirectTarget: RedirectTargetWrite?
    /// Whether these are a cache's stale bytes served while the fetch stage revalidates them
    /// in the background (``CacheRules/servesWhileRevalidating(_:now:)``).
    let revalidatesInBackground: Bool

    /// A redirect target's answer, written under the target's own key with its own metadata,
    /// so that a later chain that leads there is answered by it (fresh) or revalidates it with
    /// its own validators.
    struct RedirectTargetWrite: Sendable {
        /// The target's data key.
        let key: String
        /// The target's bytes.
        let data: Data
        /// The target's own metadata (validators, freshness, `Vary` key for the target's request).
        let metadata: DataCacheMetadata
        /// What to write to the local disk (``FetchStateMachine/CacheWrite/store`` after a
        /// download, ``FetchStateMachine/CacheWrite/updateMetadata`` after a 304).
        let write: FetchStateMachine.CacheWrite
        /// Whether the shared tier stores it.
        let shares: Bool
    }

    init(
        data: Data, source: FetchStateMachine.Source, response: LoadedResponse? = nil, metadata: DataCacheMetadata,
        revalidatedTier: CacheLayer = .disk, isStaleOnArrival: Bool = false, redirectTarget: RedirectTargetWrite? = nil,
        revalidatesInBackground: Bool = false
    ) {
        self.data = data
        self.source = source
        self.response = response
        self.metadata = metadata
        self.revalidatedTier = revalidatedTier
        self.isStaleOnArrival = isStaleOnArrival
        self.redirectTarget = redirectTarget
        self.revalidatesInBackground = revalidatesInBackground
    }

    /// The same result, with nothing to write under a redirect target's key.
    var withoutRedirectTarget: FetchResult {
        FetchResult(
            data: data, source: source, response: response, metadata: metadata, revalidatedTier: revalidatedTier,
            isStaleOnArrival: isStaleOnArrival, revalidatesInBackground: revalidatesInBackground)
    }
}
