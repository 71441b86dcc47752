import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one place that decides which tier answers a fetch of original bytes: the disk cache,
/// then a shared remote tier (a slot, not configured yet), then the network; with HTTP
/// freshness, revalidation and serving stale on error. No I/O: every transition takes what
/// the last action produced and returns the next action, so the rules are unit-tested without
/// a disk or a server, and ``ImagePipeline``'s fetch job only performs the actions.
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
        /// Whether a shared remote tier sits between the disk and the network.
        var hasSharedTier: Bool
        /// Cap of the heuristic freshness lifetime, in seconds.
        var heuristicCap: Double
    }

    /// Where the bytes of a finished fetch come from.
    enum Source: Sendable, Equatable {
        /// A disk entry served without any request (fresh, cache-only, or stale after an error).
        case disk
        /// A disk entry confirmed by the server (HTTP 304).
        case revalidated
        /// The shared remote tier.
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

    /// The next thing to do.
    enum Action: Sendable {
        /// Read the disk cache, then call ``diskRead(_:now:)``.
        case readDisk
        /// Read the shared tier, then call ``sharedRead(_:now:)``.
        case readShared
        /// Load from the network, conditional on these validators when given, then call
        /// ``loaded(_:response:redirects:exchange:)`` or ``loadFailed(_:)``.
        case load(validators: DataCacheMetadata?)
        /// Done: deliver this result after applying `write`.
        case finish(FetchResult, write: CacheWrite)
        /// Done: fail.
        case fail(any Error)
    }

    private enum State {
        case idle
        case readingDisk
        /// Waiting on the shared tier; `stale` is a disk entry kept for revalidation.
        case readingShared(stale: DataCacheEntry?)
        /// Waiting on the network; `stale` is the disk entry (its validators were sent when it
        /// has any).
        case loading(stale: DataCacheEntry?)
        case finished
    }

    let inputs: Inputs
    private var state = State.idle

    init(_ inputs: Inputs) { self.inputs = inputs }

    /// The first action.
    mutating func start() -> Action {
        guard case .idle = state else { return invalid("start") }
        if inputs.readsCaches {
            state = .readingDisk
            return .readDisk
        }
        if inputs.isCacheOnly { return finish(.fail(DataLoadingError.notCached)) }
        return afterDisk(stale: nil)
    }

    /// The disk read gave `entry` (or nothing) at `now`.
    mutating func diskRead(_ entry: DataCacheEntry?, now: Date) -> Action {
        guard case .readingDisk = state else { return invalid("diskRead") }
        if let entry, inputs.isCacheOnly || inputs.policy == .ignoreHTTPHeaders || HTTPFreshness.isFresh(entry.metadata, now: now) {
            return finish(.finish(FetchResult(data: entry.data, source: .disk, metadata: entry.metadata), write: .none))
        }
        if inputs.isCacheOnly { return finish(.fail(DataLoadingError.notCached)) }
        return afterDisk(stale: entry)
    }

    /// The shared tier gave `entry` (or nothing, or an error treated as nothing) at `now`.
    mutating func sharedRead(_ entry: DataCacheEntry?, now: Date) -> Action {
        guard case .readingShared(let stale) = state else { return invalid("sharedRead") }
        if let entry, inputs.policy == .ignoreHTTPHeaders || HTTPFreshness.isFresh(entry.metadata, now: now) {
            return finish(.finish(FetchResult(data: entry.data, source: .shared, metadata: entry.metadata), write: .store))
        }
        return load(stale: stale)
    }

    /// The network answered: `data` (empty for a 304) and `response`, after following
    /// `redirects` (their responses, in order).
    mutating func loaded(
        _ data: Data, response: URLResponse, redirects: [HTTPURLResponse] = [], exchange: HTTPFreshness.Exchange
    ) -> Action {
        guard case .loading(let stale) = state else { return invalid("loaded") }
        let http = response as? HTTPURLResponse
        if let stale, http?.statusCode == 304, Self.hasValidators(stale) {
            let metadata = HTTPFreshness.refreshed(stale.metadata, with: response, exchange: exchange, heuristicCap: inputs.heuristicCap)
            return finish(.finish(FetchResult(data: stale.data, source: .revalidated, response: response, metadata: metadata), write: .updateMetadata))
        }
        guard http.map({ (200..<300).contains($0.statusCode) && $0.statusCode != 206 }) ?? true, !data.isEmpty else {
            // Only a loader that does not validate gets here (a 304 nobody asked for, an error status).
            return finish(.fail(http.map { DataLoadingError.statusCode($0.statusCode) } ?? DataLoadingError.emptyBody))
        }
        let own = HTTPFreshness.metadata(for: response, data: data, exchange: exchange, heuristicCap: inputs.heuristicCap)
        // Stored under the URL asked for, the entry stands for the redirects too.
        let chained = inputs.policy == .ignoreHTTPHeaders ? own
            : HTTPFreshness.metadata(own, throughRedirects: redirects, exchange: exchange, heuristicCap: inputs.heuristicCap)
        let metadata = chained ?? own
        // Only HTTP answers are cached (`file:` and `data:` are read each time), and under the
        // HTTP policy never a `no-store` one, nor one reached through a `no-store` redirect.
        let storable = http != nil && (inputs.policy == .ignoreHTTPHeaders || (chained != nil && !CacheControl(metadata.cacheControl).noStore))
        return finish(.finish(FetchResult(data: data, source: .network, response: response, metadata: metadata), write: storable ? .store : .none))
    }

    /// The network failed with `error`.
    mutating func loadFailed(_ error: any Error) -> Action {
        guard case .loading(let stale) = state else { return invalid("loadFailed") }
        if let stale, inputs.servesStaleOnError, let loading = error as? DataLoadingError, loading.isTransient {
            let control = CacheControl(stale.metadata.cacheControl)
            if !control.mustRevalidate && !control.noCache {
                return finish(.finish(FetchResult(data: stale.data, source: .disk, metadata: stale.metadata), write: .none))
            }
        }
        return finish(.fail(error))
    }

    private mutating func afterDisk(stale: DataCacheEntry?) -> Action {
        if inputs.hasSharedTier, inputs.readsCaches {
            state = .readingShared(stale: stale)
            return .readShared
        }
        return load(stale: stale)
    }

    private mutating func load(stale: DataCacheEntry?) -> Action {
        state = .loading(stale: stale)
        return .load(validators: stale.flatMap { Self.hasValidators($0) ? $0.metadata : nil })
    }

    private static func hasValidators(_ entry: DataCacheEntry) -> Bool {
        entry.metadata.etag != nil || entry.metadata.lastModified != nil
    }

    private mutating func finish(_ action: Action) -> Action {
        state = .finished
        return action
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
struct FetchResult: Sendable {
    var data: Data
    var source: FetchStateMachine.Source
    var response: URLResponse?
    var metadata: DataCacheMetadata
}
