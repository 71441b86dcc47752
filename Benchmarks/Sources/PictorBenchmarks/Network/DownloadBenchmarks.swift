import Foundation
import PictorCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads (target N2): 1,000 distinct image URLs from nginx on loopback, 6 at a time,
/// Pictor's loader against `curl --parallel --parallel-max 6` in one process, interleaved.
struct DownloadBenchmarks {
    let options: Options
    let report: Report
    var plan: RunPlan { options.quick ? .quick : .full }
    static let id = "network.download1000.par6.vs-curl"
    static let rawID = "network.download1000.par6.vs-urlsession"

    func run() {
        guard options.selects(Self.id) || options.selects(Self.rawID) else { return }
        print("network: 1,000 downloads over loopback, 6 at a time")
        guard let loader = Candidates.loader() else {
            for id in [Self.id, Self.rawID] where options.selects(id) {
                report.skip(id, "Pictor loader (loading branch) not on main yet")
            }
            return
        }
        do {
            let site = try ImageSite(options: options, count: 1_000)
            defer { site.stop() }
            guard let curl = which("curl") else { return report.skip(Self.id, "curl not installed") }
            let curlPass: () -> Double = {
                let start = nowNanoseconds()
                _ = try? runProcess(curl, ["--parallel", "--parallel-max", "6", "-s", "-K", site.curlConfig.path])
                return Double(nowNanoseconds() - start)
            }
            let urls = site.urls
            let pictorPass: () -> Double = {
                let start = nowNanoseconds()
                let failures = runBlocking { await Self.download(urls, with: loader, concurrency: 6) }
                if failures > 0 { print("  (\(failures) Pictor downloads failed)") }
                return Double(nowNanoseconds() - start)
            }
            let figure = "1,000 JPEG downloads (\(site.meanKB) kB mean) from nginx on loopback, 6 concurrent, per image"
            if options.selects(Self.id) {
                let result = Interleave.comparePasses(plan: plan, items: urls.count, candidate: pictorPass, reference: curlPass)
                report.add(.comparison(
                    id: Self.id, targetID: "N2", figure: figure,
                    result: result, referenceName: "curl --parallel-max 6", goal: .speedupAtLeast(0.8)))
            }
            if options.selects(Self.rawID) {
                let raw = RawURLSessionLoader()
                let rawPass: () -> Double = {
                    let start = nowNanoseconds()
                    _ = runBlocking { await Self.download(urls, with: raw, concurrency: 6) }
                    return Double(nowNanoseconds() - start)
                }
                let result = Interleave.comparePasses(plan: plan, items: urls.count, candidate: pictorPass, reference: rawPass)
                report.add(.comparison(
                    id: Self.rawID, targetID: "N1", figure: figure,
                    result: result, referenceName: "raw URLSession, 6 tasks", goal: .speedupAtLeast(0.9)))
            }
        } catch {
            report.skip(Self.id, "set-up failed: \(error)")
        }
    }

    /// Downloads every URL with at most `concurrency` transfers at once; returns the failures.
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

/// A directory of `count` distinct image names (symbolic links to the 1024-px JPEGs) served by
/// nginx, plus a curl config that fetches each once to /dev/null.
final class ImageSite {
    let nginx: Nginx
    let urls: [URL]
    let curlConfig: URL
    let meanKB: Int

    init(options: Options, count: Int) throws {
        if let reason = TestImages.prepare(options) { throw BenchError(reason) }
        let files = TestImages.files("jpeg1024")
        guard !files.isEmpty else { throw BenchError("no test images") }
        let root = URL(fileURLWithPath: options.workDirectory, isDirectory: true).appendingPathComponent("site-\(count)")
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
        let server = try Nginx(root: root, runDirectory: root.deletingLastPathComponent().appendingPathComponent("nginx-\(count)"))
        nginx = server
        urls = (0..<count).map { URL(string: "http://127.0.0.1:\(server.port)/img/\($0).jpg")! }
        curlConfig = root.deletingLastPathComponent().appendingPathComponent("curl-\(count).txt")
        try urls.map { "url = \"\($0.absoluteString)\"\noutput = \"/dev/null\"\n" }.joined()
            .write(to: curlConfig, atomically: false, encoding: .utf8)
    }

    func stop() { nginx.stop() }
}
