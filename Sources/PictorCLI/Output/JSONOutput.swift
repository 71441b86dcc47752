import Foundation
import Pictor

/// `--json` output of `fetch` and `prefetch`: JSON Lines on standard output, one `image` object
/// per image as it finishes, then one `summary` object. Keys are stable (the README lists them);
/// absent values are omitted, never `null`.
enum JSONOutput {
    /// One image: `{"type":"image","url":…,"status":"ok"|"failed"|"cancelled","layer":…,"revalidated":…,
    /// "stale_on_arrival":…,"coalesced":…,"served_stale":…,"truncated":…,"width":…,"height":…,"bytes":…,"ms":…,"output":…,
    /// "output_bytes":…,"previews":…,"previews_written":…,"error":…}`.
    struct ImageRecord: Encodable {
        let type = "image"
        var url: String
        var status: String
        var layer: String?
        var revalidated: Bool?
        var stale_on_arrival: Bool?
        /// Whether the image joined work already running for the same URL (no transfer or
        /// decode of its own), as the report's `coalesced` column and the summary count it.
        var coalesced: Bool?
        /// Whether the image came from a cache's stale bytes, served at once while the server
        /// was asked in the background (`stale-while-revalidate`).
        var served_stale: Bool?
        /// Whether the image was decoded from data cut short (an animation's complete frames):
        /// delivered and written, cached nowhere, so a warm run downloads it again.
        var truncated: Bool?
        var width: Int?
        var height: Int?
        var bytes: Int64?
        var ms: Double
        var output: String?
        var output_bytes: Int64?
        /// Previews delivered while the image downloaded (`fetch --previews` only).
        var previews: Int?
        /// Of ``previews``, those written: the others were replaced by a newer one while a
        /// write ran, or dropped when the final image came.
        var previews_written: Int?
        var error: String?

        init(_ r: ImageJob.Result) {
            url = Formatting.url(r.url)
            ms = (r.seconds * 1000 * 10).rounded() / 10
            switch r.status {
            case .ok:
                status = "ok"
                layer = r.layer
                revalidated = r.revalidated
                stale_on_arrival = r.staleOnArrival
                coalesced = r.wasShared
                truncated = r.truncated
                served_stale = r.servedStale
                if r.width > 0 { width = r.width; height = r.height }
                bytes = r.bytes
                output = r.outputPath
                if r.outputPath != nil { output_bytes = r.writtenBytes }
                previews = r.previews?.received
                previews_written = r.previews?.written
            case .failed(let why):
                status = "failed"
                error = why
            case .cancelled:
                status = "cancelled"
            }
        }
    }

    /// The run: `{"type":"summary","images":…,"ok":…,"failed":…,"cancelled":…,"layers":{…},"revalidated":…,
    /// "stale_on_arrival":…,"coalesced":…,"served_stale":…,"bytes":…,"seconds":…,"images_per_second":…,"interrupted":…,"not_started":…,"fleet":{…}}`.
    struct SummaryRecord: Encodable {
        let type = "summary"
        var images: Int
        var ok: Int
        var failed: Int
        /// Images in flight when Ctrl-C stopped the run.
        var cancelled: Int
        var layers: [String: Int]
        var revalidated: Int
        var stale_on_arrival: Int
        var coalesced: Int
        /// Images served from stale bytes while the server was asked in the background.
        var served_stale: Int
        var bytes: Int64
        var seconds: Double
        var images_per_second: Double
        var interrupted: Bool
        /// URLs of the list never started because Ctrl-C stopped the run (0 otherwise): with
        /// `images`, the whole list.
        var not_started: Int
        var fleet: SharedCacheStatistics?

        init(_ summary: PrefetchSummary, interrupted: Bool = false, notStarted: Int = 0) {
            let results = summary.results
            images = results.count
            failed = summary.failures.count
            cancelled = summary.cancelled
            ok = images - failed - cancelled
            layers = summary.layers
            revalidated = summary.revalidated
            stale_on_arrival = summary.staleOnArrival
            coalesced = summary.coalesced
            served_stale = summary.servedStale
            bytes = summary.bytesRead
            seconds = (summary.elapsed * 1000).rounded() / 1000
            images_per_second = (Double(images) / max(summary.elapsed, 1e-6) * 10).rounded() / 10
            self.interrupted = interrupted
            not_started = notStarted
            fleet = summary.fleet
        }
    }

    /// One line of JSON for `value` (keys sorted, no slashes escaped).
    static func line(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
