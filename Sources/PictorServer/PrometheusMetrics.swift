import PictorCore
import PictorService

/// The `/metrics` page: ``/PictorService/ServiceMetrics`` and the server's own counters in
/// Prometheus' text exposition format (version 0.0.4).
///
/// | metric | type | labels |
/// | --- | --- | --- |
/// | `pictor_requests_total` | counter | `status`: image requests by the status the access log writes: the service's answers, the server's own refusals (408, 414, 431, libmicrohttpd's), 503 while draining, 499 when the client left first (the statuses seen so far; `/health` and `/metrics` not counted) |
/// | `pictor_image_responses_total` | counter | `layer`: 200 and 304 by where the image came from (every layer, 0 included) |
/// | `pictor_refusals_total` | counter | `kind`: refusals by ``/PictorService/ServiceError/Kind``, in snake case (every kind) |
/// | `pictor_coalesced_requests_total` | counter | requests that joined a result already being made |
/// | `pictor_encodes_total` | counter | results encoded |
/// | `pictor_decodes_total` | counter | original bytes decoded (a result from memory or disk decodes nothing) |
/// | `pictor_stage_seconds` | histogram | `stage`: seconds of each run of a stage of making results, `queue` (waiting for a decode or processing slot), `download`, `decode`, `process` (one processor), `encode`; buckets from 0.5 ms to 10 s (``/PictorService/StageHistogram/bounds``), `_sum` and `_count` (every stage, 0 included) |
/// | `pictor_server_in_flight_requests` | gauge | image requests (and `/health` requests waiting for a probe of the tiers) being answered now |
/// | `pictor_server_draining_refusals_total` | counter | requests answered 503 while the server drained |
/// | `pictor_server_client_aborts_total` | counter | requests whose client hung up while their answer was being made (logged 499, their work cancelled) |
/// | `pictor_server_draining` | gauge | 1 while the server drains, else 0 |
/// | `pictor_server_refusals_total` | counter | `status`: requests refused before the service saw them: 408 (head not complete within the header timeout), 414 and 431 (head over the limit) always; 400 and 501 for a body delimited two ways or by an unsupported coding, 413 for a body over the limit, and libmicrohttpd's own refusals (400, 505, …), as seen |
///
/// `/health` and `/metrics` themselves are not counted.
public enum PrometheusMetrics {
    /// The server's counters beside the service's.
    public struct ServerCounters: Sendable, Hashable {
        /// Image requests being answered now, and `/health` requests waiting for a probe of
        /// the tiers.
        public var inFlight = 0
        /// Requests answered 503 because the server was draining.
        public var drainingRefusals = 0
        /// Requests whose client hung up while their answer was being made: logged 499 with
        /// no bytes, their work cancelled.
        public var clientAborts = 0
        /// Requests logged 499: their client left before the answer was sent (``clientAborts``
        /// and the clients found gone when their answer was written).
        public var closedByClient = 0
        /// Whether the server is draining.
        public var draining = false
        /// Requests refused by the server itself (not the service), by status: 408 for a
        /// connection cut off by the header timeout, 414 and 431 for a head over the limit, 400
        /// and 501 for a body delimited two ways or by an unsupported coding, and
        /// libmicrohttpd's own refusals.
        public var refusalsByStatus: [Int: Int] = [:]

        /// Zero counters, not draining.
        public init() {}
    }

    /// The media type of the page.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The page for `service` and `server`, every line ending in `\n`.
    public static func render(_ service: ServiceMetrics, server: ServerCounters) -> String {
        var out = ""
        func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: Int)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples { out += "\(name)\(sample.labels) \(sample.value)\n" }
        }
        // Every status the access log writes for an image request: the service's answers,
        // the server's own refusals, its 503s while draining, and 499 for a client that left.
        var statuses = service.responsesByStatus
        statuses.merge(server.refusalsByStatus, uniquingKeysWith: +)
        if server.drainingRefusals > 0 { statuses[503, default: 0] += server.drainingRefusals }
        if server.closedByClient > 0 { statuses[499, default: 0] += server.closedByClient }
        family("pictor_requests_total", "counter",
               "Requests by the HTTP status the access log writes (499: the client left first; 408: cut off by the header timeout); /health and /metrics not counted.",
               statuses.sorted { $0.key < $1.key }.map { ("{status=\"\($0.key)\"}", $0.value) })
        family("pictor_image_responses_total", "counter", "Image responses (200 and 304) by the layer the image came from.",
               ResultLayer.allCases.map { ("{layer=\"\($0.rawValue)\"}", service.responsesByLayer[$0] ?? 0) })
        family("pictor_refusals_total", "counter", "Requests refused (status 400 and above), by kind.",
               ServiceError.Kind.allCases.map { ("{kind=\"\(snakeCase($0))\"}", service.refusalsByKind[$0] ?? 0) })
        family("pictor_coalesced_requests_total", "counter", "Requests that joined a result another request was already making.",
               [("", service.coalescedRequests)])
        family("pictor_encodes_total", "counter", "Results encoded.", [("", service.encodes)])
        family("pictor_decodes_total", "counter", "Original bytes decoded.", [("", service.decodes)])
        out += "# HELP pictor_stage_seconds Seconds of each run of a stage of making results.\n"
        out += "# TYPE pictor_stage_seconds histogram\n"
        for stage in PipelineStage.allCases {
            let histogram = service.stages[stage] ?? StageHistogram()
            let label = "stage=\"\(stage.rawValue)\""
            for (bound, count) in zip(StageHistogram.bounds, histogram.cumulativeCounts) {
                out += "pictor_stage_seconds_bucket{\(label),le=\"\(number(bound))\"} \(count)\n"
            }
            out += "pictor_stage_seconds_bucket{\(label),le=\"+Inf\"} \(histogram.count)\n"
            out += "pictor_stage_seconds_sum{\(label)} \(number(histogram.sum))\n"
            out += "pictor_stage_seconds_count{\(label)} \(histogram.count)\n"
        }
        family("pictor_server_in_flight_requests", "gauge", "Image requests being answered now.", [("", server.inFlight)])
        family("pictor_server_draining_refusals_total", "counter", "Requests answered 503 while the server drained.",
               [("", server.drainingRefusals)])
        family("pictor_server_client_aborts_total", "counter", "Requests whose client hung up while their answer was being made.",
               [("", server.clientAborts)])
        family("pictor_server_draining", "gauge", "1 while the server drains.", [("", server.draining ? 1 : 0)])
        var serverRefusals = server.refusalsByStatus
        for status in [408, 414, 431] where serverRefusals[status] == nil { serverRefusals[status] = 0 }
        family("pictor_server_refusals_total", "counter", "Requests refused before the service saw them, by HTTP status.",
               serverRefusals.sorted { $0.key < $1.key }.map { ("{status=\"\($0.key)\"}", $0.value) })
        return out
    }

    /// `1` for 1.0, `0.005` for 0.005: a whole number without its fraction, as Prometheus'
    /// own clients write bucket bounds.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }

    /// `invalidSignature` → `invalid_signature`, `notAnImageURL` → `not_an_image_url`: a run of
    /// capitals is one word (an acronym), whose last capital starts the next word when a
    /// lowercase letter follows (`URLFormat` → `url_format`).
    static func snakeCase(_ kind: ServiceError.Kind) -> String {
        snakeCase(String(describing: kind))
    }

    static func snakeCase(_ name: String) -> String {
        let characters = Array(name)
        var out = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previousIsUpper = characters[index - 1].isUppercase
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if !previousIsUpper || nextIsLower { out += "_" }
            }
            out += character.lowercased()
        }
        return out
    }
}
