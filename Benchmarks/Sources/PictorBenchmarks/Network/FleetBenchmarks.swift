import Foundation
import PictorTestSupport

/// The Redis shared fleet tier, simulated on one machine (targets F1, F1-cluster, F2): the whole
/// CLI as child processes, JPEGs from nginx on loopback (``ImageSite``), `redis-server` started
/// here (``RedisServer`` / ``RedisCluster`` of PictorTestSupport: loopback, free port, no
/// persistence, stopped by PID).
///
/// - F1: 4 `pictor prefetch LIST --data-only --concurrency 8 --shared-cache redis://… --cache-dir
///   <own empty dir>` processes at once against one `redis-server` (`--maxmemory 512mb
///   --maxmemory-policy allkeys-lru`, FLUSHALL before every pass). Origin requests are counted
///   from nginx's access log (each URL once is the goal); the fleet's wall time for 4 × N images
///   is compared with one process alone doing the N URLs without a shared cache (own empty
///   disk cache), rounds alternating. Every exit status must be 0.
/// - F1-cluster: the same through a 3-primary Redis Cluster (seed list of the three nodes).
/// - F2: per image, a fresh process with an empty local cache and Redis warm (every image a
///   shared hit, checked on the summary's `layers:` line) vs the same command again with its
///   disk cache now warm (every image a disk hit); nginx's log must show no request.
///
/// Quick mode: 200 URLs, 1 round, no warm-up; full mode: 500 URLs, 1 warm-up and 3 rounds.
struct FleetBenchmarks {
    let options: Options
    let report: Report
    static let processes = 4
    static let concurrency = 8
    var count: Int { options.quick ? 200 : 500 }
    var rounds: Int { options.quick ? 1 : 3 }
    var warmup: Int { options.quick ? 0 : 1 }

    static let f1 = Group(prefix: "fleet.redis.prefetch.4proc", target: "F1", tierName: "one redis-server")
    static let cluster = Group(prefix: "fleet.cluster3.prefetch.4proc", target: "F1-cluster", tierName: "a 3-primary Redis Cluster")
    static let f2ID = "fleet.redis.shared-hit.vs-disk-hit"
    static let f2ExtraID = "fleet.redis.shared-hit.extra-per-image"

    /// The rows of one fleet figure (F1 or F1-cluster).
    struct Group {
        let prefix: String
        let target: String
        let tierName: String
        var originID: String { prefix + ".origin-requests" }
        var throughputID: String { prefix + ".par8.vs-1proc" }
        var cpuID: String { throughputID + ".cpu" }
        var ids: [String] { [originID, throughputID, cpuID] }
    }

    func run() {
        let f1IDs = Self.f1.ids, clusterIDs = Self.cluster.ids, f2IDs = [Self.f2ID, Self.f2ExtraID]
        let all = f1IDs + clusterIDs + f2IDs
        guard all.contains(where: options.selects) else { return }
        print("fleet: \(Self.processes) pictor processes sharing originals through Redis, \(count) URLs from nginx on loopback")
        func skipAll(_ ids: [String], _ reason: String) { for id in ids where options.selects(id) { report.skip(id, reason) } }
        guard let pictor = options.pictorBinary, FileManager.default.isExecutableFile(atPath: pictor) else {
            return skipAll(all, "the pictor binary was not given (scripts/bench.sh passes --pictor)")
        }
        guard RedisServer.isAvailable else { return skipAll(all, "redis-server not installed (\(RedisServer.defaultBinary))") }
        guard which("nginx") != nil else { return skipAll(all, "nginx not installed") }
        // The reference must not pick up a shared tier from the environment.
        unsetenv("PICTOR_SHARED_CACHE")

        let site: ImageSite, list: URL
        do {
            site = try ImageSite(options: options, count: count)
            list = URL(fileURLWithPath: options.workDirectory).appendingPathComponent("fleet-urls-\(count).txt")
            try site.urls.map(\.absoluteString).joined(separator: "\n").write(to: list, atomically: false, encoding: .utf8)
        } catch {
            return skipAll(all, "set-up failed: \(error)")
        }
        defer { site.stop() }
        let fleet = Fleet(pictor: pictor, list: list.path, site: site, count: count,
                          work: URL(fileURLWithPath: options.workDirectory).appendingPathComponent("fleet"))

        if (f1IDs + f2IDs).contains(where: options.selects) {
            do {
                let server = try RedisServer(extraArguments: ["--maxmemory", "512mb", "--maxmemory-policy", "allkeys-lru"])
                defer { server.stop() }
                let tier = Tier(url: server.url, flush: { try Self.flushAll([server]) })
                if f1IDs.contains(where: options.selects) { fleetRows(Self.f1, tier: tier, fleet: fleet) }
                if f2IDs.contains(where: options.selects) { sharedHitRows(tier: tier, fleet: fleet) }
            } catch {
                skipAll(f1IDs + f2IDs, "set-up failed: \(error)")
            }
        }
        if clusterIDs.contains(where: options.selects) {
            guard RedisCluster.isAvailable else { return skipAll(clusterIDs, "redis-cli not installed (\(RedisCluster.cliBinary))") }
            do {
                let cluster = try RedisCluster()
                defer { cluster.stop() }
                let tier = Tier(url: cluster.seedURL, flush: { try Self.flushAll(cluster.nodes) })
                fleetRows(Self.cluster, tier: tier, fleet: fleet)
            } catch {
                skipAll(clusterIDs, "set-up failed: \(error)")
            }
        }
    }

    // MARK: F1, F1-cluster

    private func fleetRows(_ group: Group, tier: Tier, fleet: Fleet) {
        print("  \(group.target): \(Self.processes) processes at once through \(group.tierName) (\(tier.url))")
        var fleetPasses: [FleetPass] = [], singles: [MeasuredRun] = []
        var measured: [(FleetPass, MeasuredRun)] = []
        do {
            for round in 0..<(warmup + rounds) {
                let a: FleetPass, b: MeasuredRun
                if round % 2 == 0 { a = try fleet.fleetPass(tier); b = try fleet.singlePass() }
                else { b = try fleet.singlePass(); a = try fleet.fleetPass(tier) }
                fleetPasses.append(a); singles.append(b)
                if round >= warmup { measured.append((a, b)) }
                print(String(format: "    pass %d%@: fleet %.2f s, %d origin requests (%d URLs more than once); one process %.2f s",
                             round + 1, round < warmup ? " (warm-up)" : "", a.wall / 1e9, a.requests.total,
                             a.requests.repeated.count, b.wallNanoseconds / 1e9))
                if round == 0 {
                    for (i, out) in a.outputs.enumerated() {
                        for line in out.split(separator: "\n") where line.contains("layers:") || line.contains("fleet:") {
                            print("      p\(i + 1): \(line.trimmingCharacters(in: .whitespaces))")
                        }
                    }
                    print(fleet.cacheStats(tier).split(separator: "\n").map { "      stats: " + $0 }.joined(separator: "\n"))
                }
            }
        } catch {
            for id in group.ids where options.selects(id) { report.skip(id, "failed: \(error)") }
            return
        }
        // Every process of every pass must have succeeded.
        for (index, pass) in fleetPasses.enumerated() {
            if case let (i, run)? = pass.runs.enumerated().first(where: { $0.element.status != 0 }) {
                let tail = pass.outputs[i].split(separator: "\n").suffix(6).joined(separator: " / ")
                let reason = "failed: pictor prefetch (process \(i + 1) of \(Self.processes), pass \(index + 1)) exited \(run.status); "
                    + "origin requests that pass: \(pass.requests.total) for \(count) URLs; output: \(tail)"
                for id in group.ids where options.selects(id) { report.skip(id, reason) }
                return
            }
        }
        if case let (index, single)? = singles.enumerated().first(where: { $0.element.status != 0 }) {
            let reason = "failed: the reference (one process, no shared cache) exited \(single.status) in pass \(index + 1)"
            for id in [group.throughputID, group.cpuID] where options.selects(id) { report.skip(id, reason) }
        }

        let n = Double(count), fleetImages = Double(count * Self.processes)
        if options.selects(group.originID) {
            let worst = fleetPasses.max { $0.requests.total < $1.requests.total }!
            var text = "\(worst.requests.total) requests (\(String(format: "%.2f", Double(worst.requests.total) / n))× the URLs)"
            if fleetPasses.count > 1 { text += ", passes: " + fleetPasses.map { "\($0.requests.total)" }.joined(separator: ", ") }
            let repeated = worst.requests.repeated
            if !repeated.isEmpty {
                let most = repeated.max { $0.value < $1.value }!
                text += "; \(repeated.count) URLs fetched more than once (up to \(most.value)×, e.g. \(most.key))"
            }
            if worst.requests.missing > 0 { text += "; \(worst.requests.missing) URLs never requested" }
            if worst.requests.nonOK > 0 { text += "; \(worst.requests.nonOK) answers not 200" }
            let layers = worst.layers
            text += "; summed over the processes: network \(layers["network", default: 0]), shared \(layers["shared", default: 0]), "
                + "memory \(layers["memory", default: 0]), disk \(layers["disk", default: 0])"
            report.add(Row(id: group.originID, targetID: group.target,
                           figure: "Origin requests (nginx access log) while \(Self.processes) `pictor prefetch --shared-cache` processes "
                               + "fetch the same \(count) URLs at once through \(group.tierName), empty local caches, Redis flushed (worst pass)",
                           pictor: text, reference: "each URL once: \(count)",
                           ratio: Double(worst.requests.total), ratioKind: "requests", goal: .exactly(n),
                           pictorValue: Double(worst.requests.total), referenceValue: n))
            // The product bug, spelled out for whoever reads the log.
            for (index, pass) in fleetPasses.enumerated() where !pass.requests.repeated.isEmpty {
                let list = pass.requests.repeated.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }
                print("    pass \(index + 1): URLs requested more than once: " + list.prefix(40).joined(separator: " ")
                      + (list.count > 40 ? " … (\(list.count) in all)" : ""))
            }
        }
        guard !singles.contains(where: { $0.status != 0 }), !measured.isEmpty else { return }
        let figure = "\(Self.processes) × `pictor prefetch --data-only --concurrency 8 --shared-cache` at once through \(group.tierName) "
            + "(\(Self.processes) × \(count) images, \(site(fleet)), empty local caches) vs one process alone, no shared cache, "
            + "same \(count) URLs: wall time per image (fleet of \(Self.processes) total images/s ÷ one process's)"
        let referenceName = "1 process, no shared cache"
        if options.selects(group.throughputID) {
            let result = ABResult(candidate: Summary(measured.map { $0.0.wall / fleetImages }),
                                  reference: Summary(measured.map { $0.1.wallNanoseconds / n }),
                                  timeRatio: Summary(measured.map { ($0.0.wall / fleetImages) / ($0.1.wallNanoseconds / n) }).median)
            report.add(.comparison(id: group.throughputID, targetID: group.target, figure: figure, result: result,
                                   referenceName: referenceName, goal: .none, throughput: true))
        }
        if options.selects(group.cpuID) {
            let result = ABResult(candidate: Summary(measured.map { $0.0.cpu / fleetImages }),
                                  reference: Summary(measured.map { $0.1.cpuNanoseconds / n }),
                                  timeRatio: Summary(measured.map { ($0.0.cpu / fleetImages) / ($0.1.cpuNanoseconds / n) }).median)
            report.add(.comparison(id: group.cpuID, targetID: group.target,
                                   figure: "… CPU time (user + system, all \(Self.processes) processes; Redis's own not counted) per image",
                                   result: result, referenceName: referenceName, goal: .none))
        }
    }

    private func site(_ fleet: Fleet) -> String { "\(fleet.site.meanKB) kB mean JPEGs" }

    // MARK: F2

    private func sharedHitRows(tier: Tier, fleet: Fleet) {
        print("  F2: shared hits (fresh local cache, Redis warm) vs disk hits (same command again)")
        var shared: [MeasuredRun] = [], disk: [MeasuredRun] = []
        let ids = [Self.f2ID, Self.f2ExtraID]
        func fail(_ reason: String) { for id in ids where options.selects(id) { report.skip(id, reason) } }
        do {
            try tier.flush()
            let prime = try fleet.prime(tier)
            guard prime.status == 0 else { return fail("failed: the priming prefetch exited \(prime.status)") }
            for round in 0..<(warmup + rounds) {
                let (a, b) = try fleet.sharedThenDisk(tier, round: round)
                if let problem = a.problem ?? b.problem { return fail("failed in pass \(round + 1): \(problem)") }
                print(String(format: "    pass %d%@: shared hits %.2f s, disk hits %.2f s", round + 1,
                             round < warmup ? " (warm-up)" : "", a.run.wallNanoseconds / 1e9, b.run.wallNanoseconds / 1e9))
                if round >= warmup { shared.append(a.run); disk.append(b.run) }
            }
        } catch {
            return fail("failed: \(error)")
        }
        let n = Double(count)
        let figure = "`pictor prefetch --data-only --shared-cache` of \(count) URLs by a fresh process, empty local cache, "
            + "Redis warm (every image a shared hit, no origin request) vs the same command again, local disk cache warm "
            + "(every image a disk hit): wall time per image, process start-up included"
        if options.selects(Self.f2ID) {
            let result = ABResult(candidate: Summary(shared.map { $0.wallNanoseconds / n }),
                                  reference: Summary(disk.map { $0.wallNanoseconds / n }),
                                  timeRatio: Summary(zip(shared, disk).map { $0.wallNanoseconds / $1.wallNanoseconds }).median)
            report.add(.comparison(id: Self.f2ID, targetID: "F2", figure: figure, result: result,
                                   referenceName: "disk hits", goal: .none))
        }
        if options.selects(Self.f2ExtraID) {
            let extra = Summary(zip(shared, disk).map { ($0.wallNanoseconds - $1.wallNanoseconds) / n })
            report.add(Row(id: Self.f2ExtraID, targetID: "F2",
                           figure: "… what a shared hit adds to a disk hit, per image (difference of the two wall times ÷ \(count))",
                           pictor: "\(formatDuration(extra.median)) (\(formatDuration(extra.min))–\(formatDuration(extra.max)))",
                           reference: "disk hit: \(formatDuration(Summary(disk.map { $0.wallNanoseconds / n }).median))",
                           ratio: nil, ratioKind: "time", goal: .none, pictorValue: extra.median, referenceValue: nil))
        }
    }

    private static func flushAll(_ nodes: [RedisServer]) throws {
        for node in nodes {
            let reply = try node.command(["FLUSHALL"])
            guard reply == .status("OK") else { throw BenchError("FLUSHALL on \(node.address): \(reply)") }
        }
    }
}

/// One pass of the fleet: the processes' runs and outputs, the pass's wall time (first start to
/// last exit) and the origin requests it caused.
private struct FleetPass {
    var runs: [MeasuredRun]
    var outputs: [String]
    var wall: Double
    var requests: OriginRequests
    var cpu: Double { runs.reduce(0) { $0 + $1.cpuNanoseconds } }
    /// The `layers:` lines of the processes, summed.
    var layers: [String: Int] {
        outputs.map(Fleet.layers).reduce(into: [:]) { sum, l in for (k, v) in l { sum[k, default: 0] += v } }
    }
}

/// What nginx's access log shows for a stretch of time.
private struct OriginRequests {
    var total = 0
    var nonOK = 0
    /// Paths requested more than once, with their counts.
    var repeated: [String: Int] = [:]
    /// URLs of the list never requested.
    var missing = 0
}

/// A run checked for what F2 expects of it.
private struct CheckedRun {
    var run: MeasuredRun
    var problem: String?
}

/// Runs the `pictor` processes of the fleet figures.
private struct Fleet {
    let pictor: String
    let list: String
    let site: ImageSite
    let count: Int
    let work: URL

    private var fm: FileManager { .default }

    private func freshDirectory(_ name: String) throws -> URL {
        let dir = work.appendingPathComponent(name)
        try? fm.removeItem(at: dir)
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    private func prefetch(cacheDirectory: URL, shared: String?) -> [String] {
        ["prefetch", list, "--data-only", "--concurrency", "\(FleetBenchmarks.concurrency)", "--cache-dir", cacheDirectory.path]
            + (shared.map { ["--shared-cache", $0] } ?? [])
    }

    /// Flushes Redis, then starts the processes at once, each with its own empty disk cache, and
    /// waits for all of them.
    func fleetPass(_ tier: Tier) throws -> FleetPass {
        try tier.flush()
        let base = try freshDirectory("pass")
        let dirs = try (0..<FleetBenchmarks.processes).map { i -> URL in
            let d = base.appendingPathComponent("cache-\(i)")
            try fm.createDirectory(at: d, withIntermediateDirectories: true)
            return d
        }
        let outputs = dirs.indices.map { base.appendingPathComponent("out-\($0).txt").path }
        let offset = logOffset()
        var pending: [MeasuredRun.Pending] = []
        do {
            for i in dirs.indices {
                pending.append(try MeasuredRun.start(pictor, prefetch(cacheDirectory: dirs[i], shared: tier.url), output: outputs[i]))
            }
        } catch {
            _ = pending.map { $0.wait() }
            throw error
        }
        let runs = pending.map { $0.wait() }
        let wall = Double(nowNanoseconds() - pending[0].started)
        usleep(50_000)   // nginx logs a request as it finishes it; let the last lines land
        let requests = originRequests(since: offset)
        let texts = outputs.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }
        try? fm.removeItem(at: base)
        return FleetPass(runs: runs, outputs: texts, wall: wall, requests: requests)
    }

    /// One process alone, no shared cache, its own empty disk cache (the reference).
    func singlePass() throws -> MeasuredRun {
        let dir = try freshDirectory("single")
        defer { try? fm.removeItem(at: dir) }
        return try MeasuredRun.run(pictor, prefetch(cacheDirectory: dir, shared: nil))
    }

    /// Fills the shared tier: one process, a throwaway disk cache.
    func prime(_ tier: Tier) throws -> MeasuredRun {
        let dir = try freshDirectory("prime")
        defer { try? fm.removeItem(at: dir) }
        return try MeasuredRun.run(pictor, prefetch(cacheDirectory: dir, shared: tier.url))
    }

    /// A fresh process with an empty disk cache (shared hits expected), then the same command
    /// again (disk hits expected); neither may reach the origin.
    func sharedThenDisk(_ tier: Tier, round: Int) throws -> (CheckedRun, CheckedRun) {
        let dir = try freshDirectory("f2-cache")
        defer { try? fm.removeItem(at: dir) }
        let output = work.appendingPathComponent("f2-out.txt").path
        func one(_ expected: String) throws -> CheckedRun {
            let offset = logOffset()
            let run = try MeasuredRun.run(pictor, prefetch(cacheDirectory: dir, shared: tier.url), output: output)
            usleep(50_000)
            let requests = originRequests(since: offset).total
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            let layers = Self.layers(text)
            var problem: String?
            if run.status != 0 {
                problem = "pictor prefetch (\(expected) run) exited \(run.status): "
                    + text.split(separator: "\n").suffix(6).joined(separator: " / ")
            } else if layers[expected, default: 0] != count {
                let line = text.split(separator: "\n").first { $0.contains("layers:") }.map(String.init) ?? "no layers: line"
                problem = "expected \(expected) \(count) on the summary, got: \(line.trimmingCharacters(in: .whitespaces))"
            } else if requests != 0 {
                problem = "the \(expected)-hit run made \(requests) origin requests (expected none)"
            }
            return CheckedRun(run: run, problem: problem)
        }
        let shared = try one("shared")
        let disk = try one("disk")
        return (shared, disk)
    }

    /// `pictor cache stats --shared-cache URL` after a pass (for the log).
    func cacheStats(_ tier: Tier) -> String {
        guard let dir = try? freshDirectory("stats") else { return "" }
        defer { try? fm.removeItem(at: dir) }
        let result = try? runProcess(pictor, ["cache", "stats", "--shared-cache", tier.url, "--cache-dir", dir.path])
        return result?.output ?? ""
    }

    /// `memory N, disk N, shared N, network N` from a prefetch summary's `layers:` line.
    static func layers(_ output: String) -> [String: Int] {
        guard let line = output.split(separator: "\n").first(where: { $0.contains("layers:") }),
              let colon = line.firstIndex(of: ":") else { return [:] }
        var result: [String: Int] = [:]
        for part in line[line.index(after: colon)...].split(separator: ",") {
            let words = part.split(separator: " ")
            if words.count >= 2, let n = Int(words[1]) { result[String(words[0])] = n }
        }
        return result
    }

    private func logOffset() -> UInt64 {
        var info = stat()
        return stat(site.nginx.accessLog.path, &info) == 0 ? UInt64(info.st_size) : 0
    }

    /// Requests nginx logged after `offset` (combined format: `… "GET /img/1.jpg HTTP/1.1" 200 …`).
    private func originRequests(since offset: UInt64) -> OriginRequests {
        var result = OriginRequests()
        guard let handle = FileHandle(forReadingAtPath: site.nginx.accessLog.path) else { return result }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        let data = (try? handle.readToEnd()) ?? Data()
        var perPath: [String: Int] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            result.total += 1
            let fields = line.split(separator: "\"")
            // fields[1] = `GET /img/1.jpg HTTP/1.1`, fields[2] = ` 200 123 `
            guard fields.count >= 3 else { continue }
            let request = fields[1].split(separator: " ")
            if request.count >= 2 { perPath[String(request[1]), default: 0] += 1 }
            if fields[2].split(separator: " ").first != "200" { result.nonOK += 1 }
        }
        result.repeated = perPath.filter { $0.value > 1 }
        result.missing = max(0, count - perPath.count)
        return result
    }
}

/// A Redis deployment the fleet shares: its URL and how to empty it.
private struct Tier {
    let url: String
    let flush: () throws -> Void
}
