import Foundation
import Pictor

/// The end-of-run summary of `pictor prefetch`, and its per-URL TSV report.
struct PrefetchSummary {
    let results: [ImageJob.Result]
    let elapsed: Double
    /// The shared tier's counters, when one was used.
    var fleet: SharedCacheStatistics? = nil

    /// Images that failed (not those cancelled in flight by Ctrl-C).
    var failures: [ImageJob.Result] { results.filter(\.status.isFailure) }
    /// Images in flight when Ctrl-C stopped the run: counted apart, neither ok nor failed.
    var cancelled: Int { results.filter { $0.status == .cancelled }.count }

    /// Images served by each layer (`memory`, `disk`, `shared`, `network`; all four present).
    var layers: [String: Int] {
        var layers = ["memory": 0, "disk": 0, "shared": 0, "network": 0]
        for r in results where r.status == .ok { layers[r.layer, default: 0] += 1 }
        return layers
    }
    /// Images confirmed by the server with a 304.
    var revalidated: Int { results.filter { $0.status == .ok && $0.revalidated }.count }
    /// Entries the server's answers left stale as they were stored (`max-age=0`, `no-cache`,
    /// an `Expires` in the past), downloads and 304s alike: each later use asks the server
    /// first. Work shared inside the process counts once.
    var staleOnArrival: Int { results.filter { $0.status == .ok && $0.staleOnArrival && !$0.wasShared }.count }
    /// Images served from stale bytes while the server was asked in the background.
    var servedStale: Int { results.filter { $0.status == .ok && $0.servedStale }.count }
    /// Images that joined work already running in this process.
    var coalesced: Int { results.filter { $0.status == .ok && $0.wasShared }.count }
    /// Bytes of originals read; work shared inside the process counts once.
    var bytesRead: Int64 { results.reduce(Int64(0)) { $0 + ($1.wasShared ? 0 : $1.bytes ?? 0) } }

    /// At most this many URLs are listed under each failure reason (`--report` has them all).
    static let urlsPerReason = 5

    /// Each reason once, most frequent first (ties in input order), with the first of its URLs
    /// in input order beneath it.
    var failureLines: [String] {
        var order: [String] = []
        var urls: [String: [URL]] = [:]
        for r in failures.sorted(by: { $0.index < $1.index }) {
            guard case .failed(let why) = r.status else { continue }
            if urls[why] == nil { order.append(why) }
            urls[why, default: []].append(r.url)
        }
        let ranked = order.enumerated().sorted { a, b in
            let (countA, countB) = (urls[a.element]!.count, urls[b.element]!.count)
            return countA != countB ? countA > countB : a.offset < b.offset
        }
        var lines: [String] = []
        for (_, why) in ranked {
            let list = urls[why]!
            lines.append("    \(list.count) × \(why)")
            lines += list.prefix(Self.urlsPerReason).map { "        \(Formatting.url($0))" }
            if list.count > Self.urlsPerReason { lines.append("        … and \(list.count - Self.urlsPerReason) more") }
        }
        return lines
    }

    var text: String {
        let ok = results.count - failures.count - cancelled
        let layers = self.layers
        let bytes = bytesRead
        let written = results.reduce(Int64(0)) { $0 + $1.writtenBytes }
        let shared = coalesced
        var lines = [
            "Summary",
            "  images:      \(results.count) (\(ok) ok, \(failures.count) failed" + (cancelled > 0 ? ", \(cancelled) cancelled)" : ")"),
            "  layers:      memory \(layers["memory", default: 0]), disk \(layers["disk", default: 0]), shared \(layers["shared", default: 0]), network \(layers["network", default: 0])"
                + (ok > 0 ? "  (\(Formatting.fixed(100 * Double(ok - layers["network", default: 0]) / Double(ok), digits: 0))% from the caches)" : ""),
            "  revalidated: \(revalidated) cached images confirmed by the server (HTTP 304: a request each, no download)",
            "  stale on arrival: \(staleOnArrival) stored already stale (max-age=0, no-cache, a past Expires): each use asks the server first",
            "  coalesced:   \(shared) joined work already running for the same URL (no extra transfer or decode)",
        ]
        if servedStale > 0 {
            lines.append("  served stale: \(servedStale) at once from stale bytes, the server asked in the background (stale-while-revalidate)")
        }
        lines += [
            "  bytes:       \(Formatting.bytes(bytes)) of originals read (network or disk)" + (written > 0 ? ", \(Formatting.bytes(written)) written" : ""),
            "  time:        \(Formatting.fixed(elapsed, digits: 2)) s, \(Formatting.fixed(Double(results.count) / max(elapsed, 1e-6), digits: 1)) images/s",
        ]
        if let s = fleet {
            var line = "  fleet:       \(s.hits + s.misses) reads (\(s.hits) found), \(s.leasesTaken) leases taken (downloads for the fleet), "
            line += "\(s.waits) waits (\(s.fallbacks) fell back), \(s.stores) stored"
            if s.oversized > 0 { line += ", \(s.oversized) too large to share" }
            if s.notSharedPrivate + s.notSharedAuthorized > 0 {
                line += ", not shared: \(s.notSharedPrivate) private, \(s.notSharedAuthorized) authorized"
            }
            if s.rejections > 0 { line += "; Redis refused \(s.rejections) operations (full?)" }
            if s.errors + s.skips > 0 { line += "; Redis failed \(s.errors) times and was skipped \(s.skips) times" }
            lines.append(line)
        }
        if !failures.isEmpty {
            lines.append("  failures:")
            lines += failureLines
        }
        return lines.joined(separator: "\n")
    }
}
