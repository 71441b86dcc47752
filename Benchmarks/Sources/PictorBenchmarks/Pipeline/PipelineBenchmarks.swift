import CBenchReference
import Foundation
import Pictor
import PictorCore
import PictorDiskCache

/// The pipeline end to end (issue 8, BRIEF N3/N4/N5/M6): N images prefetched as 256-px
/// thumbnails from nginx cold, warm from disk and warm from memory (images/s, CPU per image,
/// peak RSS); 1,000 concurrent requests for one URL (network requests and decodes counted); a
/// memory hit through the public API against a locked dictionary.
struct PipelineBenchmarks {
    let options: Options
    let report: Report
    var plan: RunPlan { options.quick ? .quick : .full }
    var count: Int { options.quick ? 200 : 1_000 }

    static let e2eIDs = ["pipeline.prefetch.cold", "pipeline.prefetch.warm-disk", "pipeline.prefetch.warm-memory"]
    static let dedupIDs = ["pipeline.dedup1000.network-requests", "pipeline.dedup1000.decodes"]
    static let hitID = "pipeline.memory-hit.vs-dict"

    func run() {
        let all = Self.e2eIDs + Self.dedupIDs + [Self.hitID] + MemoryStability.ids
        guard all.contains(where: options.selects) else { return }
        print("pipeline: end to end")
        do {
            let site = try ImageSite(options: options, count: count)
            defer { site.stop() }
            let fixtures = try DiskFixtures(options: options)
            try endToEnd(site: site, fixtures: fixtures)
            try dedup(site: site, fixtures: fixtures)
        } catch {
            for id in all where options.selects(id) { report.skip(id, "set-up failed: \(error)") }
        }
    }

    static func request(_ url: URL) -> ImageRequest {
        ImageRequest(url: url, thumbnail: ThumbnailOptions(width: 256, height: 256))
    }

    static func pipeline(disk: DiskCache, memory: ImageCache) -> ImagePipeline {
        ImagePipeline(configuration: .standard(diskCache: disk, imageCache: memory, dataLoader: DataLoader(transport: CurlTransport()), logger: .disabled))
    }

    /// Loads every request, `concurrency` at a time; returns the failures.
    static func prefetch(_ pipeline: ImagePipeline, _ requests: [ImageRequest], concurrency: Int) -> Int {
        runBlocking {
            await withTaskGroup(of: Bool.self) { group in
                var next = 0, failures = 0
                func add() {
                    let request = requests[next]; next += 1
                    group.addTask { (try? await pipeline.image(for: request)) != nil }
                }
                while next < min(concurrency, requests.count) { add() }
                for await ok in group {
                    if !ok { failures += 1 }
                    if next < requests.count { add() }
                }
                return failures
            }
        }
    }

    private func endToEnd(site: ImageSite, fixtures: DiskFixtures) throws {
        guard (Self.e2eIDs + [Self.hitID] + MemoryStability.ids).contains(where: options.selects) else { return }
        let requests = site.urls.map(Self.request)
        let diskDirectory = try fixtures.directory("pipeline-disk")
        let concurrency = 8
        var phases: [(id: String, label: String, images: Double, cpu: Double, rss: Int, base: Int, failures: Int)] = []
        func measure(_ id: String, _ label: String, _ pipeline: ImagePipeline) {
            let base = resetPeakRSS()
            let cpu0 = processCPUSeconds(), t0 = nowNanoseconds()
            let failures = Self.prefetch(pipeline, requests, concurrency: concurrency)
            let seconds = Double(nowNanoseconds() - t0) / 1e9, cpu = processCPUSeconds() - cpu0
            phases.append((id, label, Double(requests.count) / seconds, cpu / Double(requests.count), peakRSSBytes(), base, failures))
        }
        do {
            let disk = try DiskFixtures.openCache(diskDirectory, encrypted: nil)
            measure(Self.e2eIDs[0], "cold (network → disk → decode → memory)",
                    Self.pipeline(disk: disk, memory: ImageCache(configuration: .init(costLimit: 1 << 30))))
            disk.flush()
        }
        let disk = try DiskFixtures.openCache(diskDirectory, encrypted: nil)
        let memory = ImageCache(configuration: .init(costLimit: 1 << 30))
        let warm = Self.pipeline(disk: disk, memory: memory)
        measure(Self.e2eIDs[1], "warm from disk (disk → decode → memory)", warm)
        measure(Self.e2eIDs[2], "warm from memory", warm)
        for phase in phases where options.selects(phase.id) {
            if phase.failures > 0 { report.note("\(phase.id): \(phase.failures) of \(requests.count) requests failed") }
            report.add(Row(
                id: phase.id, targetID: "N3",
                figure: "Pipeline prefetch of \(requests.count) distinct 1024-px JPEGs as 256-px thumbnails, \(concurrency) at a time, \(phase.label)",
                pictor: String(format: "%.0f img/s, %.2f ms CPU/img, peak RSS %.0f MB (%.0f MB before)",
                               phase.images, phase.cpu * 1e3, Double(phase.rss) / 1e6, Double(phase.base) / 1e6),
                reference: "—", ratio: phase.images, ratioKind: "img/s", goal: .none,
                pictorValue: phase.images, referenceValue: nil))
        }
        // Requests as an app keeps them for its one pipeline: the cold phase's requests carry
        // the cold pipeline's keys, and another pipeline's keys are kept behind a lock.
        memoryHit(warm, requests: site.urls.map(Self.request))
        disk.flush()
        MemoryStability(options: options, report: report).run(warm, urls: site.urls)
    }

    /// M6: `cachedImage(for:)` (request → key → memory cache) against a locked dictionary get
    /// on the URL strings.
    private func memoryHit(_ pipeline: ImagePipeline, requests: [ImageRequest]) {
        guard options.selects(Self.hitID) else { return }
        let dict = LockedDictionary<String, Payload>()
        let payload = Payload(bytes: 1)
        let keys = requests.map { $0.url!.absoluteString }
        for key in keys { dict.set(payload, for: key) }
        let n = requests.count
        // Each request's first use computes and keeps its keys; the hits measured are the later ones.
        for request in requests { blackHole(pipeline.cachedImage(for: request)) }
        var a = 0, b = 0, misses = 0
        let hit: Batch = { ops in
            let start = nowNanoseconds()
            for _ in 0..<ops {
                if let image = pipeline.cachedImage(for: requests[a % n]) { blackHole(image) } else { misses += 1 }
                a &+= 1
            }
            return Double(nowNanoseconds() - start)
        }
        let reference: Batch = { ops in
            let start = nowNanoseconds()
            for _ in 0..<ops { blackHole(dict.value(for: keys[b % n])); b &+= 1 }
            return Double(nowNanoseconds() - start)
        }
        let result = Interleave.compare(plan: plan, candidate: hit, reference: reference)
        if misses > 0 { report.note("\(Self.hitID): \(misses) memory misses (images failed to load?)") }
        report.add(.comparison(
            id: Self.hitID, targetID: "M6", figure: "Pipeline memory hit, cachedImage(for:) with a 256-px thumbnail request",
            result: result, referenceName: "Dictionary+Mutex get", goal: .timeAtMost(3)))
        // Where the time goes: building the memory-cache key from the request alone.
        var k = 0
        let keyOnly = Interleave.measure(plan: plan) { ops in
            let start = nowNanoseconds()
            for _ in 0..<ops { blackHole(pipeline.imageCacheKey(for: requests[k % n])); k &+= 1 }
            return Double(nowNanoseconds() - start)
        }
        report.add(Row(
            id: Self.hitID + ".key", targetID: "", figure: "… of which imageCacheKey(for:) alone (request → key)",
            pictor: "\(formatDuration(keyOnly.median)) (\(formatDuration(keyOnly.min))–\(formatDuration(keyOnly.max)))",
            reference: "Dictionary+Mutex get: \(formatDuration(result.reference.median))",
            ratio: keyOnly.median / result.reference.median, ratioKind: "time", goal: .none,
            pictorValue: keyOnly.median, referenceValue: result.reference.median))
    }

    /// N5: 1,000 concurrent requests for one URL on a cold pipeline.
    private func dedup(site: ImageSite, fixtures: DiskFixtures) throws {
        guard Self.dedupIDs.contains(where: options.selects) else { return }
        let disk = try DiskFixtures.openCache(try fixtures.directory("pipeline-dedup"), encrypted: nil)
        let pipeline = Self.pipeline(disk: disk, memory: ImageCache(configuration: .init(costLimit: 1 << 30)))
        let request = Self.request(site.urls[0])
        let before = site.nginx.requestCount
        let failures = runBlocking {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<1_000 { group.addTask { (try? await pipeline.image(for: request)) != nil } }
                var failures = 0
                for await ok in group where !ok { failures += 1 }
                return failures
            }
        }
        let served = site.nginx.requestCount - before
        let stats = pipeline.statistics
        if failures > 0 { report.note("pipeline.dedup1000: \(failures) of 1,000 requests failed") }
        for (id, figure, value) in [
            (Self.dedupIDs[0], "1,000 concurrent requests for one URL: HTTP requests nginx served", served),
            (Self.dedupIDs[1], "1,000 concurrent requests for one URL: decodes started", stats.decodesStarted),
        ] where options.selects(id) {
            report.add(Row(
                id: id, targetID: "N5", figure: figure,
                pictor: "\(value) (pipeline counted \(stats.sharedRequests) requests sharing work)",
                reference: "—", ratio: Double(value), ratioKind: "", goal: .exactly(1),
                pictorValue: Double(value), referenceValue: nil))
        }
    }
}

/// Returns freed heap to the system (earlier benchmarks in this process held ~1 GB) and resets
/// the peak RSS (`VmHWM`) so that a phase reports its own peak; returns the RSS at that point.
@discardableResult
func resetPeakRSS() -> Int {
    cbench_malloc_trim()
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    return peakRSSBytes()
}
