import PictorCore

/// Where a response's image came from: the service's own result tiers, or, for a result made
/// now, the pipeline tier that had the source.
public enum ResultLayer: String, Sendable, Hashable, CaseIterable {
    /// The encoded result was in the service's memory: nothing read from disk, nothing decoded.
    case resultMemory = "result-memory"
    /// The encoded result was in the disk tier: read, not decoded.
    case resultDisk = "result-disk"
    /// Made now from a decoded image the pipeline's memory cache had.
    case memory
    /// Made now from the original bytes on disk.
    case disk
    /// Made now from the original bytes in the shared fleet tier.
    case shared
    /// Made now from a download.
    case network

    init(_ layer: CacheLayer) {
        switch layer {
        case .memory: self = .memory
        case .disk: self = .disk
        case .shared: self = .shared
        case .network: self = .network
        }
    }
}

/// The service's counters since it started, as a value a server renders (Prometheus text,
/// JSON) however it likes. Read with ``ImageService/metrics``.
public struct ServiceMetrics: Sendable, Hashable {
    /// Requests answered, every status included; a request cancelled by its caller (a client
    /// that hung up) is not: it is counted in ``refusalsByKind`` as
    /// ``ServiceError/Kind/cancelled`` alone.
    public var requests = 0
    /// Responses by HTTP status, e.g. `[200: 95, 304: 3, 404: 2]`; as ``requests``, without
    /// the cancelled ones, whose 503 nobody reads.
    public var responsesByStatus: [Int: Int] = [:]
    /// Image responses (200 and 304) by where the image came from.
    public var responsesByLayer: [ResultLayer: Int] = [:]
    /// Refusals (every status of 400 and above) by kind.
    public var refusalsByKind: [ServiceError.Kind: Int] = [:]
    /// Requests that joined a result another request was already making (no work of their own).
    public var coalescedRequests = 0
    /// Results encoded (each encode counted once, however many requests it answered; the
    /// pipeline's ``/PictorCore/ImagePipeline/Statistics/resultEncodes``).
    public var encodes = 0
    /// Original bytes decoded (the pipeline's ``/PictorCore/ImagePipeline/Statistics/decodesStarted``:
    /// each decode once, however many requests it answered; a result from the service's memory
    /// or the disk tier decodes nothing).
    public var decodes = 0
    /// How long each stage of making results took, each time it ran (every
    /// ``/PictorCore/PipelineStage``, empty ones included; work shared by several requests
    /// counted once).
    public var stages: [PipelineStage: StageHistogram] = [:]

    /// Empty counters.
    public init() {}
}
