import Foundation
import PictorCore
import Synchronization

/// An image service that speaks imgproxy's URL format, as one function from a request to a
/// response, with no socket: any HTTP server calls ``handle(_:)``.
///
/// ```swift
/// let service = ImageService(
///     configuration: ImageService.Configuration(parser: try ProcessingURLParser(signature: policy)),
///     pipeline: pipelineConfiguration)   // loader, decoder, encoder, renderer, caches
/// let response = await service.handle(ServiceRequest(method: "GET", path: target, headers: fields))
/// ```
///
/// A `GET` or `HEAD` path is verified and parsed (``ProcessingURLParser``), its source checked
/// (``SourceGuard``), its options turned into an image request (options not carried out yet
/// are refused by name, see the refusals below), and the result looked up, or made once
/// however many requests ask for it at the same time. The plan made for a path and an `Accept`
/// field (its image request, format, quality and key) is kept for the next request with the
/// same two, up to 4,096 plans and 8 MB, so a warm request is not parsed and checked again;
/// a refusal is never kept:
///
/// 1. the service's memory of encoded results (nothing read, nothing decoded);
/// 2. the pipeline's encoded-result step (``/PictorCore/ImagePipeline/encodedResult(for:)``),
///    which requests for one key share (one job; a request that leaves, by its deadline or
///    its cancellation, does not stop it for the others, and the last one to leave does):
///    the disk tier's encoded result (read, not decoded; only while the source is fresh), else
///    the image (original from memory, disk, the fleet tier or the network; decoded at the
///    thumbnail size; processed) encoded with the pipeline's ``/PictorCore/ImagePipeline/Configuration/encoder``
///    on its processing queue (``/PictorCore/ImagePipeline/Configuration/processingQueueWidth``
///    wide, off the Swift cooperative pool) and stored on disk; the service keeps it in memory.
///
/// **Cache key** (memory and disk): `<image cache key>|encoded:<format>:q<quality>`, where the
/// image cache key is the pipeline's for the request (its source key — the cache-key hook's
/// result, by default the source URL —, its thumbnail, and its processors, the last of which
/// names ``ProcessingOptions/canonicalString`` with `q` at 0 and no `f`), `<format>` is the
/// format asked for (`f:`, the extension, or negotiated) or `auto` for the source's own, and
/// `<quality>` the encoder quality (the default when the path has none). For example
/// `32:http://origin.example/photo.jpgT28:thumb(512x512,aspectFit,noup)P…service.options(rs:fit:512:512:0:0:ce:0:0/g:ce:0:0/dpr:1/q:0/bg:/sm:1/cb:)|encoded:webp:q80`.
/// So `f:webp` and `Accept`-negotiated WebP are one entry, and one decoded image (in the
/// pipeline's memory cache, when it has one) serves every format and quality.
///
/// **Responses.** 200 with `Content-Type`, `Content-Length`, `ETag`, `Cache-Control`
/// (``Configuration/cacheControl``), `Last-Modified` (the source's, when it sent one) and
/// `Vary: Accept` when the format was left to `Accept`. The `ETag` is strong: the SHA-256 of
/// the result bytes in unpadded base64url, quoted, so equal bytes have equal tags whichever
/// process or tier made them. `If-None-Match` naming it (or `*`) gets a 304 with the same
/// headers but `Content-Type` (its `Content-Length` is the 200's) and no body; on a result already in memory or on disk nothing is decoded. `HEAD`
/// gets the headers of `GET` with no body.
///
/// **Refusals**: a status and a one-line `text/plain` reason (``ServiceError``), with
/// `Cache-Control: no-store`; never the URL, never a 500 for what a request contains.
///
/// | refusal | status |
/// | --- | --- |
/// | not `GET`/`HEAD` | 405 (`Allow: GET, HEAD`) |
/// | path grammar, unknown or malformed option, unsupported option or output format | 400 |
/// | signature; source scheme (`file:`, `data:`, …), prefix, literal private address; a redirect to a source those rules refuse; an address the transport refuses | 403 |
/// | path that names no image; source 404/410 | 404 |
/// | path too long | 414 |
/// | not an image, undecodable; source over the byte or pixel limit; result over the size or pixel limit; processing or encoding failed | 422 |
/// | more than ``Configuration/maxWorkInFlight`` results being made | 429 (`Retry-After`) |
/// | source's other errors; source unreachable | 502 |
/// | source timed out; ``Configuration/requestTimeout`` passed | 504 |
/// | no renderer configured; cancelled | 503 |
///
/// `/health` and `/metrics` are the server's: this type answers image paths only, and gives
/// the server what they report (``health()``, ``metrics``).
public final class ImageService: Sendable {
    /// What the service was built from.
    public let configuration: Configuration
    /// The pipeline that fetches, decodes and processes sources, made from the configuration
    /// given to ``init(configuration:pipeline:)`` with the service's limits applied.
    public let pipeline: ImagePipeline
    let sourceGuard: SourceGuard
    let results: MemoryCache<String, ResultEntry>
    /// The plans of requests seen recently, by ``planMemoKey(path:accept:)``: at most
    /// ``maxKeptPlans`` and ``keptPlansCost`` bytes (each costs twice its key's bytes, its
    /// result key's and ``planOverhead``: the plan's request repeats the path's source), the
    /// least recently used dropped first.
    let plans = MemoryCache<String, PreparedPlan>(costLimit: ImageService.keptPlansCost, countLimit: ImageService.maxKeptPlans)
    static let maxKeptPlans = 4096
    static let keptPlansCost = 8 << 20
    static let planOverhead = 512
    /// The most encoded results kept in memory, whatever their size: many tiny results (1 × 1
    /// under distinct cache busters) cost more in bookkeeping than in bytes.
    static let maxKeptResults = 16_384
    /// What a kept result costs besides its bytes and its key's: the entry, its entity tag and
    /// the cache's node, rounded up.
    static let resultOverhead = 512
    /// The slots ``Configuration/maxWorkInFlight`` bounds: results being made, and work whose
    /// requests left but that still runs; a request for a key already waited for is a joiner.
    let workSlots: WorkSlots
    let counters = Mutex(ServiceMetrics())
    /// How long each stage of the pipeline took (its ``/PictorCore/ImagePipeline/Configuration/stageObserver``).
    let stageTimings: StageTimings
    let healthProbe = Mutex(HealthProbeState())

    /// A service over a pipeline made from `pipeline`, changed for serving:
    /// - ``/PictorCore/ImagePipeline/Configuration/cacheScope`` becomes ``/PictorCore/CacheScope/shared`` (the tiers
    ///   answer many clients: no `private` source is kept);
    /// - ``/PictorCore/ImagePipeline/Configuration/diskCachePolicy`` `.processed` and `.both` become
    ///   `.original` (the service stores its own encoded results; the pipeline's variants would
    ///   be a second encode);
    /// - ``/PictorCore/ImageDecodingOptions/maximumPixelCount`` is lowered to
    ///   ``Configuration/maxSourcePixels``;
    /// - a ``/PictorCore/DataLoader`` is replaced by one over the same transport that checks
    ///   every redirect target with the source rules and stops a body over
    ///   ``Configuration/maxSourceBytes`` while it arrives;
    /// - ``/PictorCore/ImagePipeline/Configuration/stageObserver`` also fills
    ///   ``ServiceMetrics/stages`` (an observer already set is still called).
    ///
    /// - Parameters:
    ///   - configuration: the service's settings.
    ///   - pipeline: the loader, decoder, encoder (required for any image response: without
    ///     one every image request is answered 503), renderer and caches.
    public init(configuration: Configuration, pipeline: ImagePipeline.Configuration) {
        self.configuration = configuration
        workSlots = WorkSlots(limit: configuration.maxWorkInFlight)
        var pipelineConfiguration = pipeline
        pipelineConfiguration.cacheScope = .shared
        if pipelineConfiguration.diskCachePolicy == .processed || pipelineConfiguration.diskCachePolicy == .both {
            pipelineConfiguration.diskCachePolicy = .original
        }
        pipelineConfiguration.decodingOptions.maximumPixelCount = min(
            pipelineConfiguration.decodingOptions.maximumPixelCount, configuration.maxSourcePixels)
        pipelineConfiguration.dataLoader = configuration.servingLoader(pipelineConfiguration.dataLoader)
        let timings = StageTimings()
        let observer = pipelineConfiguration.stageObserver
        pipelineConfiguration.stageObserver = { stage, duration in
            timings.record(stage, duration)
            observer?(stage, duration)
        }
        stageTimings = timings
        self.pipeline = ImagePipeline(configuration: pipelineConfiguration)
        sourceGuard = configuration.sourceGuard
        results = MemoryCache(costLimit: configuration.resultMemoryLimit, countLimit: Self.maxKeptResults,
                              entryCostLimit: 0.25, ttl: configuration.resultMemoryLifetime)
    }

    /// A snapshot of the counters (``ServiceMetrics/encodes`` and ``ServiceMetrics/decodes``
    /// are the pipeline's ``/PictorCore/ImagePipeline/Statistics/resultEncodes`` and
    /// ``/PictorCore/ImagePipeline/Statistics/decodesStarted``).
    public var metrics: ServiceMetrics {
        var metrics = counters.withLock { $0 }
        let statistics = pipeline.statistics
        metrics.encodes = statistics.resultEncodes
        metrics.decodes = statistics.decodesStarted
        metrics.stages = stageTimings.snapshot
        return metrics
    }

    /// Answers one request; never throws, never traps on request input.
    ///
    /// - Parameter request: the method, the request target and the header fields.
    /// - Returns: the status, headers and body to send (see the type's documentation).
    public func handle(_ request: ServiceRequest) async -> ServiceResponse {
        let start = ContinuousClock.now
        do {
            let (plan, key) = try prepare(request)
            if let entry = results.value(for: key) {
                return counted(respond(with: entry, plan: plan, to: request), for: request, layer: .resultMemory)
            }
            let (entry, layer) = try await result(for: plan, key: key, start: start)
            return counted(respond(with: entry, plan: plan, to: request), for: request, layer: layer)
        } catch {
            return counted(Self.refusalResponse(error, retryAfter: configuration.retryAfter), for: request, refusal: error)
        }
    }

    /// The answer to `request` when it needs no waiting: a refusal of the request itself (its
    /// method, path, options, signature or source), or a result held in memory; `nil` when the
    /// result must be made or joined, for ``handle(_:)`` to do. Counted as ``handle(_:)``
    /// counts. A server calls it on its own thread before handing the request to a task, so a
    /// warm answer costs no thread switch.
    ///
    /// - Parameter request: the method, the request target and the header fields.
    public func immediateResponse(to request: ServiceRequest) -> ServiceResponse? {
        do {
            let (plan, key) = try prepare(request)
            guard let entry = results.value(for: key) else { return nil }
            return counted(respond(with: entry, plan: plan, to: request), for: request, layer: .resultMemory)
        } catch {
            return counted(Self.refusalResponse(error, retryAfter: configuration.retryAfter), for: request, refusal: error)
        }
    }

    /// Counts `response` in the metrics; HEAD answers as GET would, without the body
    /// (Content-Length stays that of GET).
    private func counted(
        _ response: ServiceResponse, for request: ServiceRequest, layer: ResultLayer? = nil, refusal: ServiceError? = nil
    ) -> ServiceResponse {
        var response = response
        if request.method == "HEAD" { response.body = Data() }
        counters.withLock { m in
            // A cancelled request's caller left: nobody reads its 503, so only its kind counts.
            if refusal?.kind != .cancelled {
                m.requests += 1
                m.responsesByStatus[response.status, default: 0] += 1
            }
            if let layer { m.responsesByLayer[layer, default: 0] += 1 }
            if let refusal { m.refusalsByKind[refusal.kind, default: 0] += 1 }
        }
        return response
    }

    /// Checks the request (method, path grammar, signature, source rules) and names its result.
    private func prepare(_ request: ServiceRequest) throws(ServiceError) -> (ResultPlan, String) {
        guard request.method == "GET" || request.method == "HEAD" else {
            throw ServiceError(.methodNotAllowed, reason: "method not allowed (GET and HEAD only)")
        }
        let accept = request.header("Accept")
        // The plan is a function of the path and `Accept` alone (the keys, presets and rules
        // are fixed for the service's life), and it was most of a warm request's CPU: a pair
        // seen before reuses it. Only plans are kept, never refusals, so a path that failed
        // is checked whole again.
        let memoKey = Self.planMemoKey(path: request.path, accept: accept)
        if let prepared = plans.value(for: memoKey) { return (prepared.plan, prepared.key) }
        let url = try configuration.parser.parse(request.path)
        let source = try sourceGuard.check(url.source.url)
        let plan = try ResultPlan(url, source: source, accept: accept, configuration: configuration)
        let key = pipeline.encodedResultKey(for: plan.request, format: plan.format, quality: plan.quality)
        plans.set(PreparedPlan(plan: plan, key: key), for: memoKey, cost: 2 * memoKey.utf8.count + key.utf8.count + Self.planOverhead)
        return (plan, key)
    }

    /// The key of a (path, `Accept`) pair among the kept plans: `-` and the path without an
    /// `Accept`, else its length in bytes, `:`, the field and the path, so that no two pairs
    /// share a key whatever bytes either holds.
    static func planMemoKey(path: String, accept: String?) -> String {
        guard let accept else { return "-" + path }
        return "\(accept.utf8.count):" + accept + path
    }

    /// The result for `plan` (not in memory): made, or joined, through the pipeline, in its
    /// slot (``WorkSlots``).
    private func result(for plan: ResultPlan, key: String, start: ContinuousClock.Instant) async throws(ServiceError) -> (ResultEntry, ResultLayer) {
        guard let slot = workSlots.enter(key) else {
            throw ServiceError(.overloaded, reason: "too many images are being made; retry shortly")
        }
        defer { workSlots.leave(key) }
        let remaining = configuration.requestTimeout - (ContinuousClock.now - start).seconds
        return try await make(plan, key: key, slot: slot, timeout: max(0, remaining))
    }
}
