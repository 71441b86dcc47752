import Foundation
import PictorTestSupport

/// The image service under load (targets SV1–SV5, ids `service.…`): the release `pictor serve`
/// against thumbor 7.8 and nginx `image_filter`, each a whole server started fresh on loopback,
/// loaded by wrk with `scripts/wrk_urls.lua`.
///
/// - Origin: one nginx worker serving four 2,000-px JPEGs q85 (made from the corpus photos by
///   `scripts/make_service_images.py` into the work directory) under any `/src/<name>/<file>`.
/// - Cold (SV1 vs thumbor, SV2 vs nginx `image_filter` + `proxy_cache`): every request names a
///   source URL no request named before, so it is a miss for every peer: one download, one
///   decode, fit 512×512, one JPEG q80 encode. 2 connections, then 8; in each round every peer
///   runs once, the order rotating, each in a new process tree with empty caches, after a
///   warm-up of its own (distinct URLs too). Figures: requests/s, CPU per request (user + system
///   of every process of the peer, from `/proc/<pid>/stat`, between two idle points around the
///   run), p95 latency (wrk).
/// - SV5 memory: the sum over the peer's processes of each one's `VmHWM` after the cold
///   8-connection run (start-up and warm-up included).
/// - SV3 warm: 64 URLs whose results Pictor has made, asked over and over on 8 connections,
///   against nginx serving the same result bytes as static files (one worker per core).
/// - SV4 coalesced: 100 requests for one uncached result, all sent before any answer is read;
///   origin requests from nginx's access log, encodes and joined requests from `/metrics`. And
///   two `pictor serve` processes on one `redis-server` (`--shared-cache`), 50 requests each.
///
/// Pictor runs as shipped: `--insecure-unsigned` (thumbor's `/unsafe/` URLs are unsigned too),
/// `--allow-private-network` when the binary has it (the origin is on loopback), a fresh
/// `--cache-dir`, default limits, its access log to a file. thumbor: `--processes` = cores,
/// defaults but `RESULT_STORAGE = None` (its file storage keeps originals, as Pictor's disk
/// tier does). A peer that is not installed, does not start, or answers wrongly is listed as
/// not measured; it never fails the run.
struct ServiceBenchmarks {
    let options: Options
    let report: Report

    struct Plan {
        var rounds: Int
        var warmupSeconds: Int
        var seconds: Int
    }

    var plan: Plan { options.quick ? Plan(rounds: 1, warmupSeconds: 1, seconds: 3) : Plan(rounds: 3, warmupSeconds: 3, seconds: 15) }

    static let connections = [2, 8]
    static let box = 512
    static let quality = 80
    static let warmURLs = 64
    static let coalescedRequests = 100
    static let memoryLimitMiB = 256.0

    static func coldID(_ peer: String, _ connections: Int) -> String { "service.cold.vs-\(peer).c\(connections)" }
    static let memoryID = "service.memory"
    static let warmID = "service.warm.vs-nginx-static"
    static let coalescedID = "service.coalesced"
    static let fleetID = "service.coalesced.fleet"

    static var ids: [String] {
        connections.flatMap { c in ["thumbor", "nginx"].flatMap { p in ["", ".cpu", ".p95"].map { coldID(p, c) + $0 } } }
            + [memoryID, warmID, warmID + ".p99", warmID + ".cpu", coalescedID, coalescedID + ".encodes", fleetID]
    }

    /// One peer: how to start it, and the path before a wrk request's `<name>/<file>`.
    struct Peer {
        let key: String
        let name: String
        let prefix: String
        let start: (_ run: URL, _ port: Int) throws -> ProcessTree
    }

    /// One measured cold (or warm) run of one peer.
    struct Run {
        var load: WrkResult
        var cpuPerRequest: Double
        var peakRSS: Double
        var originRequests: Int
    }

    /// Where the rows read and write, and what every run shares.
    struct Setup {
        let work: URL
        let images: URL
        let files: [String]
        let meanKB: Int
        let originPort: Int
        let originLog: URL
        let wrk: Wrk
        let pictor: String
        let privateNetworkFlag: Bool
    }

    func run() {
        let selected = Self.ids.filter(options.selects)
        guard !selected.isEmpty else { return }
        print("service: pictor serve vs thumbor and nginx image_filter under wrk, 2,000-px JPEGs → fit 512 q80")
        func skipAll(_ reason: String) { for id in selected { report.skip(id, reason) } }
        guard let pictor = options.pictorBinary else { return skipAll("the pictor binary was not given (scripts/bench.sh passes --pictor)") }
        guard let wrkBinary = which("wrk") else { return skipAll("wrk not installed (scripts/bootstrap.sh bench installs it)") }
        guard which("nginx") != nil else { return skipAll("nginx not installed (the origin)") }
        let loadBefore = Self.loadAverage()
        let work = URL(fileURLWithPath: options.workDirectory, isDirectory: true).appendingPathComponent("service")
        defer { try? FileManager.default.removeItem(at: work) }
        let origin: (tree: ProcessTree, port: Int, accessLog: URL)
        let setup: Setup
        do {
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            let images = work.appendingPathComponent("img")
            try Self.makeImages(options, into: images)
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: images.path)) ?? []).filter { $0.hasSuffix(".jpg") }.sorted()
            guard files.count == 4 else { throw BenchError("expected 4 source images, found \(files.count)") }
            let total = files.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: images.appendingPathComponent($1).path)[.size] as? Int) ?? 0) }
            origin = try ServiceServers.origin(run: work.appendingPathComponent("origin"), images: images)
            let help = EndToEndBenchmarks.capture(pictor, ["serve", "--help"]).output
            setup = Setup(work: work, images: images, files: files, meanKB: total / files.count / 1_000,
                          originPort: origin.port, originLog: origin.accessLog,
                          wrk: Wrk(binary: wrkBinary, output: work.appendingPathComponent("wrk.out").path),
                          pictor: pictor, privateNetworkFlag: help.contains("--allow-private-network"))
            if !setup.privateNetworkFlag {
                report.note("service: `pictor serve --help` has no --allow-private-network; run without it")
            }
        } catch {
            return skipAll("set-up failed: \(error)")
        }
        defer { origin.tree.stop() }

        let (peers, missing) = peers(setup)
        cold(setup, peers: peers, missing: missing)
        warm(setup, pictorPeer: peers[0])
        coalesced(setup, pictorPeer: peers[0])
        report.note("service rows: load average \(loadBefore) before, \(Self.loadAverage()) after (2 CPUs shared with other work; the load runs were not niced)")
    }

    // MARK: Peers

    func peers(_ setup: Setup) -> (peers: [Peer], missing: [String: String]) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let source = "http://127.0.0.1:\(setup.originPort)/src/"
        var peers = [Peer(key: "pictor", name: "pictor serve", prefix: "/insecure/rs:fit:\(Self.box):\(Self.box)/q:\(Self.quality)/plain/\(source)",
                          start: { try ServiceServers.pictor(setup.pictor, run: $0, port: $1, privateNetworkFlag: setup.privateNetworkFlag) })]
        var missing: [String: String] = [:]
        let thumbor = options.thumborBinary ?? Paths.benchmarks.appendingPathComponent(".venv-thumbor/bin/thumbor").path
        let version = FileManager.default.isExecutableFile(atPath: thumbor)
            ? EndToEndBenchmarks.capture(thumbor, ["--version"]) : (status: Int32(-1), output: "")
        // `thumbor --version` prints "Thumbor v7.8.0 (30-May-2026)".
        if version.status == 0, let v = version.output.split(whereSeparator: { $0 == " " || $0 == "\n" })
            .first(where: { $0.hasPrefix("v") && $0.dropFirst().first?.isNumber == true })?.dropFirst() {
            if !v.hasPrefix("7.8") { report.note("service: thumbor is \(v), not the 7.8 the rows call for") }
            peers.append(Peer(key: "thumbor", name: "thumbor \(v) (--processes \(cores))",
                              prefix: "/unsafe/fit-in/\(Self.box)x\(Self.box)/filters:quality(\(Self.quality))/\(source)",
                              start: { try ServiceServers.thumbor(thumbor, run: $0, port: $1, processes: cores) }))
        } else {
            missing["thumbor"] = "thumbor 7.8 not installed at \(thumbor) (scripts/bench.sh installs it from PyPI into Benchmarks/.venv-thumbor; PyPI unreachable?)"
        }
        if FileManager.default.fileExists(atPath: ServiceServers.imageFilterModule) {
            peers.append(Peer(key: "nginx", name: "nginx image_filter + proxy_cache (\(cores) workers)", prefix: "/src/",
                              start: { try ServiceServers.imageFilter(run: $0, port: $1, originPort: setup.originPort, workers: cores) }))
        } else {
            missing["nginx"] = "nginx's image_filter module is not installed (\(ServiceServers.imageFilterModule); Debian libnginx-mod-http-image-filter)"
        }
        return (peers, missing)
    }

    // MARK: Cold

    private func cold(_ setup: Setup, peers: [Peer], missing: [String: String]) {
        var failed = missing
        var runs: [Int: [String: [Run]]] = [:]
        var checked: Set<String> = []
        for c in Self.connections {
            var wanted: Set<String> = []
            for key in ["thumbor", "nginx"] where ["", ".cpu", ".p95"].contains(where: { options.selects(Self.coldID(key, c) + $0) }) {
                wanted.formUnion(["pictor", key])
            }
            if c == 8 && options.selects(Self.memoryID) { wanted.formUnion(["pictor", "thumbor", "nginx"]) }
            let active = peers.filter { wanted.contains($0.key) }
            guard !active.isEmpty else { continue }
            print("  cold, \(c) connections: \(active.map(\.key).joined(separator: ", ")), \(plan.rounds) round(s) of \(plan.seconds) s")
            for round in 0..<plan.rounds {
                let order = (0..<active.count).map { active[($0 + round) % active.count] }
                for peer in order where failed[peer.key] == nil {
                    do {
                        let run = try coldRun(setup, peer, connections: c, round: round, check: !checked.contains(peer.key))
                        checked.insert(peer.key)
                        runs[c, default: [:]][peer.key, default: []].append(run)
                    } catch {
                        failed[peer.key] = "\(peer.name): \(error)"
                    }
                }
            }
        }
        for c in Self.connections {
            let pictorRuns = runs[c]?["pictor"] ?? []
            for key in ["thumbor", "nginx"] {
                let id = Self.coldID(key, c)
                let ids = ["", ".cpu", ".p95"].map { id + $0 }.filter(options.selects)
                guard !ids.isEmpty else { continue }
                if let why = failed["pictor"] { ids.forEach { report.skip($0, why) }; continue }
                if let why = failed[key] { ids.forEach { report.skip($0, why) }; continue }
                guard let peer = peers.first(where: { $0.key == key }), let peerRuns = runs[c]?[key],
                      peerRuns.count == pictorRuns.count, !peerRuns.isEmpty else { continue }
                addColdRows(id: id, connections: c, setup: setup, peer: peer, pictorRuns, peerRuns, throughputGoal: 1.5,
                            cpuGoal: key == "thumbor" ? 1.0 : nil, target: key == "thumbor" ? "SV1" : "SV2")
            }
        }
        if options.selects(Self.memoryID) {
            if let why = failed["pictor"] { report.skip(Self.memoryID, why) }
            else if let pictorRuns = runs[8]?["pictor"], !pictorRuns.isEmpty {
                let pictor = Summary(pictorRuns.map(\.peakRSS))
                var references: [String] = []
                for key in ["thumbor", "nginx"] {
                    guard let peer = peers.first(where: { $0.key == key }) else { references.append("\(key): not measured"); continue }
                    if let why = failed[key] { references.append("\(peer.name): not measured (\(why.prefix(80)))"); continue }
                    let values = (runs[8]?[key] ?? []).map(\.peakRSS)
                    references.append(String(format: "%@: %.0f MiB", peer.name, Summary(values).median / 1_048_576))
                }
                report.add(Row(id: Self.memoryID, targetID: "SV5",
                               figure: "`pictor serve` peak RSS during the cold 8-connection run (VmHWM summed over the server's processes; start-up and warm-up included)",
                               pictor: String(format: "%.0f MiB (%.0f–%.0f)", pictor.median / 1_048_576, pictor.min / 1_048_576, pictor.max / 1_048_576),
                               reference: references.joined(separator: "; "),
                               ratio: pictor.median / 1_048_576, ratioKind: "MiB", goal: .valueAtMost(Self.memoryLimitMiB),
                               pictorValue: pictor.median, referenceValue: nil))
            }
        }
        for (key, why) in failed.sorted(by: { $0.key < $1.key }) where missing[key] == nil {
            report.note("service: \(key) not compared: \(why)")
        }
    }

    /// One cold run: a fresh peer, a warm-up, then the measured load; the run directory (its
    /// caches) is removed after.
    private func coldRun(_ setup: Setup, _ peer: Peer, connections c: Int, round: Int, check: Bool) throws -> Run {
        let run = setup.work.appendingPathComponent("runs/\(peer.key)-c\(c)-r\(round)")
        defer { try? FileManager.default.removeItem(at: run) }
        let port = freePort()
        let tree = try peer.start(run, port)
        defer { tree.stop() }
        if check { try Self.check(peer, port: port, setup: setup) }
        let nonce = "\(peer.key)-c\(c)-r\(round)"
        _ = try setup.wrk.run(port: port, mode: .cold, prefix: peer.prefix, nonce: "w" + nonce, files: setup.files,
                              connections: c, seconds: plan.warmupSeconds)
        let before = tree.settle()
        let load = try setup.wrk.run(port: port, mode: .cold, prefix: peer.prefix, nonce: nonce, files: setup.files,
                                     connections: c, seconds: plan.seconds)
        let after = tree.settle()
        let peak = tree.peakRSSBytes()
        let origin = ServiceServers.originRequests(setup.originLog, containing: "/src/\(nonce)-")
        if Double(load.errors) > max(1, load.requests * 0.01) {
            throw BenchError("\(load.errors) of \(Int(load.requests)) requests failed or timed out")
        }
        print(String(format: "    %@ c%d: %.1f req/s, %.1f ms CPU/req, p95 %.0f ms, %.0f MiB, %d errors, %d origin requests for %d",
                     peer.key, c, load.requestsPerSecond, (after - before) / max(1, load.requests) / 1e6, load.p95 / 1e6,
                     peak / 1_048_576, load.errors, origin, Int(load.requests)))
        return Run(load: load, cpuPerRequest: (after - before) / max(1, load.requests), peakRSS: peak, originRequests: origin)
    }

    /// One request through the peer: a 200 with a JPEG fitted inside 512 × 512 (a side of 512).
    static func check(_ peer: Peer, port: Int, setup: Setup) throws {
        for (i, file) in setup.files.enumerated() {
            let response = try LoopbackGet.get(port: port, path: peer.prefix + "check-\(i)/" + file)
            guard response.status == 200 else { throw BenchError("answered \(response.status) to a fit request") }
            guard let size = jpegDimensions(response.body) else { throw BenchError("did not answer a JPEG") }
            guard max(size.width, size.height) == box else {
                throw BenchError("answered a \(size.width)×\(size.height) JPEG, not one fitted in \(box)×\(box)")
            }
        }
    }

    private func addColdRows(id: String, connections c: Int, setup: Setup, peer: Peer, _ a: [Run], _ b: [Run],
                             throughputGoal: Double, cpuGoal: Double?, target: String) {
        let figure = "`pictor serve` cold, \(c) connections (wrk, \(plan.rounds) × \(plan.seconds) s): distinct sources, "
            + "2,000-px JPEGs (\(setup.meanKB) kB mean) from nginx on loopback → fit 512×512, JPEG q80"
        func cells(_ value: (Run) -> Double, _ format: (Double) -> String) -> (String, String, Double, Double, Double) {
            let p = Summary(a.map(value)), r = Summary(b.map(value))
            let ratio = Summary(zip(a, b).map { value($0) / value($1) }).median
            return ("\(format(p.median)) (\(format(p.min))–\(format(p.max)))",
                    "\(peer.name): \(format(r.median)); ratio of medians \(String(format: "%.2f×", p.median / r.median))",
                    ratio, p.median, r.median)
        }
        let rps = { (v: Double) in String(format: "%.1f req/s", v) }
        let ms = { (v: Double) in String(format: "%.1f ms", v / 1e6) }
        let msWhole = { (v: Double) in String(format: "%.0f ms", v / 1e6) }
        let bytes = { (runs: [Run]) in Summary(runs.map { $0.load.bytes / max(1, $0.load.requests) }).median / 1_000 }
        if options.selects(id) {
            let t = cells({ $0.load.requestsPerSecond }, rps)
            report.add(Row(id: id, targetID: target, figure: figure + String(format: " (answers ≈ %.0f kB, %@'s %.0f kB, headers included): requests/s", bytes(a), peer.key, bytes(b)),
                           pictor: t.0, reference: t.1, ratio: t.2, ratioKind: "throughput",
                           goal: .speedupAtLeast(throughputGoal), pictorValue: t.3, referenceValue: t.4))
        }
        if options.selects(id + ".cpu") {
            let t = cells(\.cpuPerRequest, ms)
            report.add(Row(id: id + ".cpu", targetID: target, figure: "… CPU per request (user + system of every process of the server)",
                           pictor: t.0, reference: t.1, ratio: t.2, ratioKind: "time",
                           goal: cpuGoal.map { .timeAtMost($0) } ?? .none, pictorValue: t.3, referenceValue: t.4))
        }
        if options.selects(id + ".p95") {
            let t = cells({ $0.load.p95 }, msWhole)
            report.add(Row(id: id + ".p95", targetID: target, figure: "… p95 latency (wrk)",
                           pictor: t.0, reference: t.1, ratio: t.2, ratioKind: "time", goal: .none,
                           pictorValue: t.3, referenceValue: t.4))
        }
    }

    // MARK: Warm

    private func warm(_ setup: Setup, pictorPeer: Peer) {
        let ids = [Self.warmID, Self.warmID + ".p99", Self.warmID + ".cpu"].filter(options.selects)
        guard !ids.isEmpty else { return }
        print("  warm, 8 connections: \(Self.warmURLs) results made once, pictor serve vs nginx serving them as files")
        let run = setup.work.appendingPathComponent("runs/warm")
        defer { try? FileManager.default.removeItem(at: run) }
        var trees: [ProcessTree] = []
        defer { trees.forEach { $0.stop() } }
        do {
            let pictorPort = freePort()
            let pictor = try pictorPeer.start(run.appendingPathComponent("pictor"), pictorPort)
            trees.append(pictor)
            // The results, made once by Pictor and written where nginx serves them.
            let nonce = "warm"
            let root = run.appendingPathComponent("static")
            precondition(Self.warmURLs % setup.files.count == 0, "the warm URLs cycle through the files as wrk_urls.lua does")
            for k in 0..<Self.warmURLs {
                let name = "\(nonce)-\(k)/\(setup.files[k % setup.files.count])"
                let response = try LoopbackGet.get(port: pictorPort, path: pictorPeer.prefix + name)
                guard response.status == 200, jpegDimensions(response.body) != nil else {
                    throw BenchError("pictor serve answered \(response.status) while the results were made")
                }
                let file = root.appendingPathComponent("r/" + name)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(response.body).write(to: file)
            }
            let staticPort = freePort()
            let nginx = try ServiceServers.staticFiles(run: run.appendingPathComponent("nginx"), root: root, port: staticPort,
                                                       workers: ProcessInfo.processInfo.activeProcessorCount)
            trees.append(nginx)
            let sides: [(key: String, tree: ProcessTree, port: Int, prefix: String)] = [
                ("pictor", pictor, pictorPort, pictorPeer.prefix), ("nginx", nginx, staticPort, "/r/"),
            ]
            let originBefore = ServiceServers.originRequests(setup.originLog, containing: "/src/\(nonce)-")
            for side in sides {
                _ = try setup.wrk.run(port: side.port, mode: .warm, prefix: side.prefix, nonce: nonce, distinct: Self.warmURLs,
                                      files: setup.files, connections: 8, seconds: plan.warmupSeconds)
            }
            var results: [String: [Run]] = [:]
            for round in 0..<plan.rounds {
                for side in (round % 2 == 0 ? sides : sides.reversed()) {
                    let before = side.tree.settle()
                    let load = try setup.wrk.run(port: side.port, mode: .warm, prefix: side.prefix, nonce: nonce,
                                                 distinct: Self.warmURLs, files: setup.files, connections: 8, seconds: plan.seconds)
                    let after = side.tree.settle()
                    guard load.errors == 0 else { throw BenchError("\(side.key): \(load.errors) of \(Int(load.requests)) warm requests failed") }
                    print(String(format: "    %@ warm: %.0f req/s, p99 %.2f ms, %.0f µs CPU/req", side.key, load.requestsPerSecond,
                                 load.p99 / 1e6, (after - before) / max(1, load.requests) / 1e3))
                    results[side.key, default: []].append(Run(load: load, cpuPerRequest: (after - before) / max(1, load.requests),
                                                              peakRSS: 0, originRequests: 0))
                }
            }
            let origin = ServiceServers.originRequests(setup.originLog, containing: "/src/\(nonce)-") - originBefore
            let a = results["pictor"] ?? [], b = results["nginx"] ?? []
            let reference = "nginx static files (\(ProcessInfo.processInfo.activeProcessorCount) workers, sendfile)"
            func pair(_ value: (Run) -> Double) -> (Summary, Summary, Double) {
                (Summary(a.map(value)), Summary(b.map(value)), Summary(zip(a, b).map { value($0) / value($1) }).median)
            }
            let figure = "`pictor serve` warm, 8 connections (wrk, \(plan.rounds) × \(plan.seconds) s): \(Self.warmURLs) results "
                + "already made (memory tier), asked over and over (\(origin) origin requests during the runs): requests/s"
            if options.selects(Self.warmID) {
                let (p, r, ratio) = pair { $0.load.requestsPerSecond }
                report.add(Row(id: Self.warmID, targetID: "SV3", figure: figure,
                               pictor: String(format: "%.0f req/s (%.0f–%.0f)", p.median, p.min, p.max),
                               reference: String(format: "%@ serving the same bytes: %.0f req/s", reference, r.median),
                               ratio: ratio, ratioKind: "throughput", goal: .speedupAtLeast(0.5),
                               pictorValue: p.median, referenceValue: r.median))
            }
            if options.selects(Self.warmID + ".p99") {
                let (p, r, _) = pair { $0.load.p99 }
                report.add(Row(id: Self.warmID + ".p99", targetID: "SV3", figure: "… p99 latency (wrk), ms",
                               pictor: String(format: "%.2f ms (%.2f–%.2f)", p.median / 1e6, p.min / 1e6, p.max / 1e6),
                               reference: String(format: "%@: %.2f ms", reference, r.median / 1e6),
                               ratio: p.median / 1e6, ratioKind: "ms", goal: .valueAtMost(5),
                               pictorValue: p.median, referenceValue: r.median))
            }
            if options.selects(Self.warmID + ".cpu") {
                let (p, r, ratio) = pair(\.cpuPerRequest)
                report.add(Row(id: Self.warmID + ".cpu", targetID: "SV3", figure: "… CPU per request (user + system of every process of the server)",
                               pictor: String(format: "%.0f µs (%.0f–%.0f)", p.median / 1e3, p.min / 1e3, p.max / 1e3),
                               reference: String(format: "%@: %.0f µs", reference, r.median / 1e3),
                               ratio: ratio, ratioKind: "time", goal: .none, pictorValue: p.median, referenceValue: r.median))
            }
        } catch {
            ids.forEach { report.skip($0, "\(error)") }
        }
    }

    // MARK: Coalesced

    private func coalesced(_ setup: Setup, pictorPeer: Peer) {
        let ids = [Self.coalescedID, Self.coalescedID + ".encodes"].filter(options.selects)
        if !ids.isEmpty {
            print("  coalesced: \(Self.coalescedRequests) requests for one uncached result")
            let run = setup.work.appendingPathComponent("runs/coalesced")
            defer { try? FileManager.default.removeItem(at: run) }
            do {
                let port = freePort()
                let tree = try pictorPeer.start(run, port)
                defer { tree.stop() }
                let nonce = "coalesced"
                let path = pictorPeer.prefix + "\(nonce)-0/\(setup.files[0])"
                let before = try Self.metrics(port: port)
                let responses = try LoopbackGet.concurrent(Array(repeating: (port, path), count: Self.coalescedRequests))
                let after = try Self.metrics(port: port)
                let origin = ServiceServers.originRequests(setup.originLog, containing: "/src/\(nonce)-")
                let answers = Self.describe(responses)
                func delta(_ name: String) -> Int { Int((after[name] ?? 0) - (before[name] ?? 0)) }
                let encodes = delta("pictor_encodes_total"), joined = delta("pictor_coalesced_requests_total")
                let layers = after.filter { $0.key.hasPrefix("pictor_image_responses_total{") && $0.value > 0 }
                    .map { "\($0.key.dropFirst("pictor_image_responses_total{layer=\"".count).dropLast(2)) \(Int($0.value))" }
                    .sorted().joined(separator: ", ")
                if options.selects(Self.coalescedID) {
                    report.add(Row(id: Self.coalescedID, targetID: "SV4",
                                   figure: "Origin requests (nginx access log) for \(Self.coalescedRequests) requests of one uncached result to one `pictor serve`, all sent before any answer is read",
                                   pictor: "\(origin) origin request(s); \(answers); \(joined) joined a result being made (pictor_coalesced_requests_total); layers: \(layers)",
                                   reference: "each result once: 1", ratio: Double(origin), ratioKind: "requests",
                                   goal: .exactly(1), pictorValue: Double(origin), referenceValue: 1))
                }
                if options.selects(Self.coalescedID + ".encodes") {
                    report.add(Row(id: Self.coalescedID + ".encodes", targetID: "SV4",
                                   figure: "… results encoded (pictor_encodes_total; /metrics counts no decodes, so decodes are not measured)",
                                   pictor: "\(encodes) encode(s)", reference: "each result once: 1", ratio: Double(encodes), ratioKind: "encodes",
                                   goal: .exactly(1), pictorValue: Double(encodes), referenceValue: 1))
                }
            } catch {
                ids.forEach { report.skip($0, "\(error)") }
            }
        }
        guard options.selects(Self.fleetID) else { return }
        guard RedisServer.isAvailable else { return report.skip(Self.fleetID, "redis-server not installed (\(RedisServer.defaultBinary))") }
        print("  coalesced across 2 processes on one redis-server")
        let run = setup.work.appendingPathComponent("runs/fleet")
        defer { try? FileManager.default.removeItem(at: run) }
        do {
            let redis = try RedisServer()
            defer { redis.stop() }
            var trees: [ProcessTree] = []
            defer { trees.forEach { $0.stop() } }
            var ports: [Int] = []
            for i in 0..<2 {
                let port = freePort()
                trees.append(try ServiceServers.pictor(setup.pictor, run: run.appendingPathComponent("p\(i)"), port: port,
                                                       privateNetworkFlag: setup.privateNetworkFlag, extra: ["--shared-cache", redis.url]))
                ports.append(port)
            }
            let nonce = "fleet"
            let path = pictorPeer.prefix + "\(nonce)-0/\(setup.files[1])"
            let before = try ports.map { try Self.metrics(port: $0) }
            let targets = (0..<Self.coalescedRequests).map { (ports[$0 % 2], path) }
            let responses = try LoopbackGet.concurrent(targets)
            let after = try ports.map { try Self.metrics(port: $0) }
            let origin = ServiceServers.originRequests(setup.originLog, containing: "/src/\(nonce)-")
            let encodes = zip(before, after).map { Int(($1["pictor_encodes_total"] ?? 0) - ($0["pictor_encodes_total"] ?? 0)) }
            report.add(Row(id: Self.fleetID, targetID: "SV4",
                           figure: "Origin requests for \(Self.coalescedRequests) requests of one uncached result, \(Self.coalescedRequests / 2) to each of 2 `pictor serve --shared-cache` on one redis-server, all sent before any answer is read",
                           pictor: "\(origin) origin request(s); \(Self.describe(responses)); encodes per process: \(encodes.map(String.init).joined(separator: ", "))",
                           reference: "each source once per fleet: 1", ratio: Double(origin), ratioKind: "requests",
                           goal: .exactly(1), pictorValue: Double(origin), referenceValue: 1))
        } catch {
            report.skip(Self.fleetID, "\(error)")
        }
    }

    /// "100 × 200, identical" or what differed.
    static func describe(_ responses: [LoopbackGet.Response]) -> String {
        let statuses = Dictionary(grouping: responses, by: \.status).map { "\($0.value.count) × \($0.key)" }.sorted().joined(separator: ", ")
        let bodies = Set(responses.filter { $0.status == 200 }.map(\.body)).count
        return statuses + (bodies <= 1 ? ", identical bodies" : ", \(bodies) different bodies")
    }

    /// `/metrics` as a dictionary: `name` or `name{labels}` → value.
    static func metrics(port: Int) throws -> [String: Double] {
        let response = try LoopbackGet.get(port: port, path: "/metrics")
        guard response.status == 200 else { throw BenchError("/metrics answered \(response.status)") }
        var values: [String: Double] = [:]
        for line in String(decoding: response.body, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }

    // MARK: Set-up

    /// Four 2,000-px JPEGs made from the corpus photos (Pillow, in the benchmark venv).
    static func makeImages(_ options: Options, into directory: URL) throws {
        let python = Paths.python(options)
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw BenchError("no Python with Pillow at \(python) (scripts/bench.sh creates it)")
        }
        guard FileManager.default.fileExists(atPath: Paths.corpus.path) else { throw BenchError("corpus not found at \(Paths.corpus.path)") }
        let script = Paths.benchmarks.appendingPathComponent("scripts/make_service_images.py").path
        let result = EndToEndBenchmarks.capture(python, [script, Paths.corpus.path, directory.path])
        guard result.status == 0 else { throw BenchError("make_service_images.py failed: \(result.output.suffix(200))") }
    }

    static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
    }
}
