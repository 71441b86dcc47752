import Foundation
import Pictor
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads (targets N1, N2, N2-h2, N2-cli): 600 distinct ~100 kB JPEGs from nginx on loopback, 8 at a
/// time, against `curl --parallel --parallel-max 8 -o /dev/null` in the same run, rounds
/// alternating. Each side's wall time, CPU time (user + system) and, for whole processes, peak
/// RSS are measured; CPU of the in-process loaders is this process's, of curl and `pictor` the
/// child's own (`wait4`).
///
/// - N2 (HTTP/1.1) and N2-h2 (HTTP/2 over TLS, nginx `http2` with a certificate made for the
///   run): ``DataLoader`` over ``CurlTransport`` in this process vs curl.
/// - N1: the same loader vs a plain URLSession doing the same downloads (the old transport's
///   ceiling).
/// - N2-cli: the whole CLI, `pictor prefetch --data-only --no-cache --concurrency 8`, vs curl
///   (process start-up included on both sides).
/// - N2-floor: `curl-multi-floor` (this package, in C: libcurl's multi interface, one thread,
///   reused handles, each body copied into a kept buffer) vs curl, and the CLI vs it: the least
///   any loader that hands bodies to its caller costs here, measured beside the others rather
///   than estimated. No goal: the rows say how much of N2-cli's gap is inherent.
struct DownloadBenchmarks {
    let options: Options
    let report: Report
    var plan: RunPlan { options.quick ? RunPlan(warmup: 1, pairs: 3, batchNanoseconds: 0) : RunPlan(warmup: 1, pairs: 7, batchNanoseconds: 0) }
    static let count = 600
    static let concurrency = 8
    static let h1ID = "network.download600.par8.vs-curl"
    static let h2ID = "network.download600.par8.h2.vs-curl"
    static let rawID = "network.download600.par8.vs-urlsession"
    static let cliID = "network.prefetch600.par8.cli.vs-curl"
    static let floorID = "network.floor600.par8.vs-curl"
    static let cliFloorID = "network.prefetch600.par8.cli.vs-floor"

    func run() {
        let ids = [Self.h1ID, Self.h2ID, Self.rawID, Self.cliID, Self.floorID, Self.cliFloorID]
        guard ids.contains(where: options.selects) else { return }
        print("network: \(Self.count) downloads over loopback, \(Self.concurrency) at a time")
        guard let curl = which("curl") else { return ids.forEach { report.skip($0, "curl not installed") } }
        do {
            let site = try ImageSite(options: options, count: Self.count)
            defer { site.stop() }
            let figure = "\(Self.count) JPEG downloads (\(site.meanKB) kB mean) from nginx on loopback, \(Self.concurrency) at a time, per image"
            let curlPass = { try MeasuredRun.run(curl, ["--parallel", "--parallel-max", "\(Self.concurrency)", "-s", "-K", site.curlConfig.path]) }
            if options.selects(Self.h1ID) || options.selects(Self.rawID) {
                let loader = DataLoader(transport: CurlTransport()) { $0.maximumConcurrentRequests = Self.concurrency }
                let pictorPass = { Self.inProcess(site.urls, loader) }
                if options.selects(Self.h1ID) {
                    let (a, b) = try Self.paired(plan, candidate: pictorPass, reference: curlPass)
                    addRows(id: Self.h1ID, target: "N2", figure: figure + ", HTTP/1.1", a, b, referenceName: "curl --parallel-max 8")
                }
                if options.selects(Self.rawID) {
                    let raw = RawURLSessionLoader(connections: Self.concurrency)
                    let rawPass = { Self.inProcess(site.urls, raw) }
                    let (a, b) = try Self.paired(plan, candidate: pictorPass, reference: { rawPass() })
                    addRows(id: Self.rawID, target: "N1", figure: figure + ", HTTP/1.1", a, b, referenceName: "URLSession, 8 tasks", throughputGoal: 0.9, cpuGoal: nil)
                }
            }
            if options.selects(Self.h2ID) {
                let tls = try ImageSite(options: options, count: Self.count, tls: true)
                defer { tls.stop() }
                guard let certificate = tls.certificate else { throw BenchError("no certificate") }
                var configuration = CurlTransport.Configuration()
                configuration.caFile = certificate
                let loader = DataLoader(transport: CurlTransport(configuration: configuration)) { $0.maximumConcurrentRequests = Self.concurrency }
                let tlsCurl = {
                    try MeasuredRun.run(curl, ["--parallel", "--parallel-max", "\(Self.concurrency)", "--http2", "--cacert", certificate, "-s", "-K", tls.curlConfig.path])
                }
                let (a, b) = try Self.paired(plan, candidate: { Self.inProcess(tls.urls, loader) }, reference: tlsCurl)
                addRows(id: Self.h2ID, target: "N2-h2", figure: figure + ", HTTP/2 over TLS", a, b, referenceName: "curl --http2 --parallel-max 8")
            }
            let list = URL(fileURLWithPath: options.workDirectory).appendingPathComponent("urls-\(Self.count).txt")
            if [Self.cliID, Self.floorID, Self.cliFloorID].contains(where: options.selects) {
                try site.urls.map(\.absoluteString).joined(separator: "\n").write(to: list, atomically: false, encoding: .utf8)
            }
            let cli = options.pictorBinary.map { pictor in
                { try MeasuredRun.run(pictor, ["prefetch", list.path, "--data-only", "--no-cache", "--concurrency", "\(Self.concurrency)"]) }
            }
            let floor = Self.floorBinary.map { binary in
                { try MeasuredRun.run(binary, [list.path, "\(Self.concurrency)"]) }
            }
            let noPictor = "the pictor binary was not given (scripts/bench.sh passes --pictor)"
            let noFloor = "curl-multi-floor is not built beside this executable (scripts/bench.sh builds it)"
            if options.selects(Self.cliID) {
                if let cli {
                    let (a, b) = try Self.paired(plan, candidate: cli, reference: curlPass)
                    if let failed = a.first(where: { $0.status != 0 }) { throw BenchError("pictor prefetch exited \(failed.status)") }
                    addRows(id: Self.cliID, target: "N2-cli", figure: "`pictor prefetch --data-only --no-cache`: " + figure, a, b,
                            referenceName: "curl --parallel-max 8", memory: true)
                } else {
                    report.skip(Self.cliID, noPictor)
                }
            }
            if options.selects(Self.floorID) {
                if let floor {
                    let (a, b) = try Self.paired(plan, candidate: floor, reference: curlPass)
                    if let failed = a.first(where: { $0.status != 0 }) { throw BenchError("curl-multi-floor exited \(failed.status)") }
                    addRows(id: Self.floorID, target: "N2-floor",
                            figure: "`curl-multi-floor` (libcurl multi + one copy per body, in C): " + figure, a, b,
                            referenceName: "curl --parallel-max 8", throughputGoal: nil, cpuGoal: nil, memory: true)
                } else {
                    report.skip(Self.floorID, noFloor)
                }
            }
            if options.selects(Self.cliFloorID) {
                if let cli, let floor {
                    let (a, b) = try Self.paired(plan, candidate: cli, reference: floor)
                    addRows(id: Self.cliFloorID, target: "N2-floor", figure: "`pictor prefetch --data-only --no-cache`: " + figure,
                            a, b, referenceName: "curl-multi-floor", throughputGoal: nil, cpuGoal: nil)
                } else {
                    report.skip(Self.cliFloorID, cli == nil ? noPictor : noFloor)
                }
            }
        } catch {
            for id in ids where options.selects(id) { report.skip(id, "set-up failed: \(error)") }
        }
    }

    /// Throughput (goal ≥ 0.8× the reference), CPU per download (goal ≤ 2× the reference) and,
    /// for whole processes, peak RSS rows from paired samples.
    private func addRows(
        id: String, target: String, figure: String, _ a: [MeasuredRun], _ b: [MeasuredRun], referenceName: String,
        throughputGoal: Double? = 0.8, cpuGoal: Double? = 2, memory: Bool = false
    ) {
        let n = Double(Self.count)
        func ab(_ value: (MeasuredRun) -> Double) -> ABResult {
            ABResult(candidate: Summary(a.map { value($0) / n }), reference: Summary(b.map { value($0) / n }),
                     timeRatio: Summary(zip(a, b).map { value($0) / value($1) }).median)
        }
        report.add(.comparison(id: id, targetID: target, figure: figure, result: ab(\.wallNanoseconds),
                               referenceName: referenceName, goal: throughputGoal.map { .speedupAtLeast($0) } ?? .none,
                               throughput: true))
        report.add(.comparison(id: id + ".cpu", targetID: target, figure: "… CPU time (user + system) per download",
                               result: ab(\.cpuNanoseconds), referenceName: referenceName,
                               goal: cpuGoal.map { .timeAtMost($0) } ?? .none))
        if memory {
            let pictor = Summary(a.map(\.peakRSSBytes)), reference = Summary(b.map(\.peakRSSBytes))
            report.add(Row(id: id + ".rss", targetID: target, figure: "… peak RSS of the process",
                           pictor: String(format: "%.1f MB", pictor.median / 1e6),
                           reference: String(format: "%@: %.1f MB", referenceName, reference.median / 1e6),
                           ratio: pictor.median / reference.median, ratioKind: "scale", goal: .none,
                           pictorValue: pictor.median, referenceValue: reference.median))
        }
    }

    /// `curl-multi-floor`, built beside this executable (same package), if it is there.
    static let floorBinary: String? = {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let path = directory.appendingPathComponent("curl-multi-floor").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()

    /// Alternating rounds (A B, B A, …) after one warm-up of each side.
    static func paired(
        _ plan: RunPlan, candidate: () throws -> MeasuredRun, reference: () throws -> MeasuredRun
    ) throws -> ([MeasuredRun], [MeasuredRun]) {
        for _ in 0..<plan.warmup { _ = try candidate(); _ = try reference() }
        var a: [MeasuredRun] = [], b: [MeasuredRun] = []
        for pair in 0..<plan.pairs {
            if pair % 2 == 0 { a.append(try candidate()); b.append(try reference()) }
            else { b.append(try reference()); a.append(try candidate()) }
        }
        return (a, b)
    }

    /// Downloads every URL in this process; wall and CPU time of the pass (peak RSS not measured).
    static func inProcess(_ urls: [URL], _ loader: any DataLoading) -> MeasuredRun {
        let cpu = processCPUNanoseconds()
        let start = nowNanoseconds()
        let failures = runBlocking { await download(urls, with: loader, concurrency: concurrency) }
        if failures > 0 { print("  (\(failures) downloads failed)") }
        return MeasuredRun(status: failures == 0 ? 0 : 1, wallNanoseconds: Double(nowNanoseconds() - start),
                           cpuNanoseconds: processCPUNanoseconds() - cpu, peakRSSBytes: 0)
    }

    /// Downloads every URL with at most `concurrency` loads at once; returns the failures.
    static func download(_ urls: [URL], with loader: any DataLoading, concurrency: Int) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            var failures = 0, next = 0
            func add() {
                let url = urls[next]; next += 1
                group.addTask { (try? await loader.data(for: URLRequest(url: url))) != nil }
            }
            while next < min(concurrency, urls.count) { add() }
            for await ok in group {
                if !ok { failures += 1 }
                if next < urls.count { add() }
            }
            return failures
        }
    }
}

/// A directory of `count` distinct image names (symbolic links to the images of one
/// ``TestImages`` set, the 1024-px JPEGs by default) served by nginx (over TLS with HTTP/2 when
/// `tls`, with a self-signed certificate made here), plus a curl config that fetches each once
/// to /dev/null.
final class ImageSite {
    let nginx: Nginx
    let urls: [URL]
    let curlConfig: URL
    let meanKB: Int
    /// The certificate (PEM) to trust, for a TLS site.
    let certificate: String?

    init(options: Options, count: Int, tls: Bool = false, set: String = "jpeg1024", locations: String = "") throws {
        if let reason = TestImages.prepare(options) { throw BenchError(reason) }
        let files = TestImages.files(set)
        guard !files.isEmpty else { throw BenchError("no test images") }
        let name = "site-\(set)-\(count)\(tls ? "-tls" : "")\(locations.isEmpty ? "" : "-locations")"
        let root = URL(fileURLWithPath: options.workDirectory, isDirectory: true).appendingPathComponent(name)
        let fm = FileManager.default
        try? fm.removeItem(at: root)
        try fm.createDirectory(at: root.appendingPathComponent("img"), withIntermediateDirectories: true)
        var total = 0
        for i in 0..<count {
            let source = files[i % files.count]
            try fm.createSymbolicLink(atPath: root.appendingPathComponent("img/\(i).jpg").path, withDestinationPath: source)
            total += (try? fm.attributesOfItem(atPath: source)[.size] as? Int) ?? 0
        }
        meanKB = total / max(1, count) / 1_000
        let run = root.deletingLastPathComponent().appendingPathComponent("nginx-\(name)")
        var keyPair: (certificate: String, key: String)?
        if tls {
            guard let openssl = which("openssl") else { throw BenchError("openssl not installed") }
            try fm.createDirectory(at: run, withIntermediateDirectories: true)
            let certificate = run.appendingPathComponent("cert.pem").path, key = run.appendingPathComponent("key.pem").path
            let made = try runProcess(openssl, ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                                "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                                                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate])
            guard made.status == 0 else { throw BenchError("openssl could not make a certificate") }
            keyPair = (certificate, key)
        }
        certificate = keyPair?.certificate
        let server = try Nginx(root: root, runDirectory: run, tls: keyPair, locations: locations)
        nginx = server
        let scheme = tls ? "https" : "http"
        urls = (0..<count).map { URL(string: "\(scheme)://127.0.0.1:\(server.port)/img/\($0).jpg")! }
        curlConfig = root.deletingLastPathComponent().appendingPathComponent("curl-\(name).txt")
        try urls.map { "url = \"\($0.absoluteString)\"\noutput = \"/dev/null\"\n" }.joined()
            .write(to: curlConfig, atomically: false, encoding: .utf8)
    }

    func stop() { nginx.stop() }
}
