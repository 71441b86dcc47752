import Foundation

/// Redirects that cost nothing warm (issue 30, item 3): 200 URLs that each answer `302` without
/// cache headers (nginx `rewrite … redirect`: an avatar, a short link) to a distinct 1024-px
/// JPEG served with `Cache-Control: max-age=3600` and an `ETag`. `pictor prefetch --data-only`
/// runs over them twice with one cache directory; the warm run's requests and image bytes are
/// read from nginx's access log. Goals: no image byte downloaded, one request per hop (200).
struct RedirectBenchmarks {
    let options: Options
    let report: Report
    static let count = 200
    static let bytesID = "network.redirect200.warm.bytes"
    static let requestsID = "network.redirect200.warm.requests"

    func run() {
        let ids = [Self.bytesID, Self.requestsID]
        guard ids.contains(where: options.selects) else { return }
        print("network: a warm run over \(Self.count) redirecting URLs")
        guard let pictor = options.pictorBinary else {
            return ids.forEach { report.skip($0, "the pictor binary was not given (scripts/bench.sh passes --pictor)") }
        }
        do {
            let site = try ImageSite(options: options, count: Self.count, locations: """
                location /r/ { rewrite ^/r/(.*)$ /img/$1 redirect; }
                location /img/ { expires 1h; try_files $uri =404; }
                """)
            defer { site.stop() }
            let work = URL(fileURLWithPath: options.workDirectory, isDirectory: true)
            let list = work.appendingPathComponent("urls-redirect-\(Self.count).txt")
            let cache = work.appendingPathComponent("cache-redirect-\(Self.count)")
            try? FileManager.default.removeItem(at: cache)
            defer { try? FileManager.default.removeItem(at: cache) }
            try site.urls.map { $0.absoluteString.replacingOccurrences(of: "/img/", with: "/r/") }
                .joined(separator: "\n").write(to: list, atomically: false, encoding: .utf8)
            let arguments = ["prefetch", list.path, "--data-only", "--cache-dir", cache.path, "--concurrency", "8", "-q"]
            let cold = try MeasuredRun.run(pictor, arguments)
            guard cold.status == 0 else { throw BenchError("cold pictor prefetch exited \(cold.status)") }
            let afterCold = Self.logged(site.nginx)
            let warm = try MeasuredRun.run(pictor, arguments)
            guard warm.status == 0 else { throw BenchError("warm pictor prefetch exited \(warm.status)") }
            let all = Self.logged(site.nginx)
            let warmLines = Array(all.dropFirst(afterCold.count))
            func summary(_ lines: [LogLine]) -> (hops: Int, images: Int, bytes: Int, notModified: Int) {
                let images = lines.filter { $0.path.hasPrefix("/img/") }
                return (lines.filter { $0.path.hasPrefix("/r/") }.count, images.count,
                        images.reduce(0) { $0 + $1.bodyBytes }, images.filter { $0.status == 304 }.count)
            }
            let c = summary(afterCold), w = summary(warmLines)
            let coldText = "cold: \(c.hops + c.images) requests, \(Self.mib(c.bytes)) of images"
            if options.selects(Self.bytesID) {
                report.add(Row(id: Self.bytesID, targetID: "",
                               figure: "Warm `pictor prefetch --data-only` over \(Self.count) URLs that answer 302 without cache headers to \(site.meanKB)-kB JPEGs with max-age=3600: image bytes downloaded (nginx access log)",
                               pictor: "\(w.bytes) bytes (\(w.images) image requests, \(w.notModified) answered 304); \(coldText)",
                               reference: "nothing while the targets are fresh: 0", ratio: Double(w.bytes), ratioKind: "bytes",
                               goal: .exactly(0), pictorValue: Double(w.bytes), referenceValue: 0))
            }
            if options.selects(Self.requestsID) {
                let requests = w.hops + w.images
                report.add(Row(id: Self.requestsID, targetID: "",
                               figure: "… requests the warm run made (nginx access log)",
                               pictor: "\(requests) requests (\(w.hops) to the redirects, \(w.images) to the images); \(coldText)",
                               reference: "one per hop: \(Self.count)", ratio: Double(requests), ratioKind: "requests",
                               goal: .exactly(Double(Self.count)), pictorValue: Double(requests), referenceValue: Double(Self.count)))
            }
        } catch {
            for id in ids where options.selects(id) { report.skip(id, "set-up failed: \(error)") }
        }
    }

    /// One access-log line: the path asked for, the status and the body bytes sent.
    struct LogLine {
        var path: String
        var status: Int
        var bodyBytes: Int
    }

    /// The lines nginx has logged (combined format: `… "GET /path HTTP/1.1" status bytes …`).
    /// nginx logs after answering, and each `pictor` run has exited before this is read.
    static func logged(_ nginx: Nginx) -> [LogLine] {
        let text = (try? String(contentsOf: nginx.accessLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "\"", omittingEmptySubsequences: false)
            guard parts.count > 2 else { return nil }
            let request = parts[1].split(separator: " ")
            let numbers = parts[2].split(separator: " ")
            guard request.count >= 2, numbers.count >= 2, let status = Int(numbers[0]) else { return nil }
            return LogLine(path: String(request[1]), status: status, bodyBytes: Int(numbers[1]) ?? 0)
        }
    }

    static func mib(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
}
