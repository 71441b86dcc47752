import Foundation

/// What the work behind one response cost. Durations are in seconds, measured with a monotonic
/// clock; a stage that did not run (a memory hit decodes nothing) reports `0`. When work was
/// shared, the durations are those of the shared work, not of this caller's wait.
public struct ImageTaskMetrics: Sendable, Hashable {
    /// Seconds from the request's start to its response; `0` for memory hits (the hit path
    /// reads no clock).
    public var totalDuration: Double
    /// Seconds waiting for a decode or processing slot (summed over the stages).
    public var queueWaitDuration: Double
    /// Seconds fetching the original bytes (disk read or download).
    public var loadDuration: Double
    /// Seconds decoding.
    public var decodeDuration: Double
    /// Seconds running processors (summed over the chain).
    public var processDuration: Double
    /// Size of the original's encoded bytes that were fetched and decoded, in bytes; `nil` when
    /// no original was read (memory hits, and processed variants read from disk).
    public var originalByteCount: Int?
    /// Whether this request was coalesced: it joined work that another caller's request had
    /// already started, at some stage (fetch, decode, processing or the whole load), instead of
    /// doing it again. Of two identical requests running at once, the one that started the
    /// work reports `false` and the one that joined it `true`; both get the same image. `false`
    /// for memory hits and for work that had finished before the request came (that is a
    /// cache hit, not sharing). Set for ``ImagePipeline/data(for:)-(ImageRequest)`` responses too (a joined
    /// fetch). `pictor prefetch` counts these as `coalesced`.
    public var wasShared: Bool

    /// Creates metrics; every value defaults to zero / `nil` / `false`.
    public init(
        totalDuration: Double = 0, queueWaitDuration: Double = 0, loadDuration: Double = 0,
        decodeDuration: Double = 0, processDuration: Double = 0, originalByteCount: Int? = nil, wasShared: Bool = false
    ) {
        self.totalDuration = totalDuration
        self.queueWaitDuration = queueWaitDuration
        self.loadDuration = loadDuration
        self.decodeDuration = decodeDuration
        self.processDuration = processDuration
        self.originalByteCount = originalByteCount
        self.wasShared = wasShared
    }
}
