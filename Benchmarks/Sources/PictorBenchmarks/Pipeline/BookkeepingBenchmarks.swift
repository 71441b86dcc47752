import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorCore

/// What the pipeline itself costs per request, with the network taken away: a transport that
/// answers at once, distinct URLs (nothing coalesces, nothing is cached), one request at a
/// time on one task, CPU time of the whole process (every thread the request wakes counts). `ImagePipeline.data(for:)` against the same `DataLoader.load` alone: the
/// difference is the pipeline's bookkeeping (fetch job, coalescing, the fetch state machine,
/// freshness, validation, the response), which a warm image-service request also pays.
struct BookkeepingBenchmarks {
    let options: Options
    let report: Report
    var plan: RunPlan { options.quick ? .quick : .full }

    static let instantID = "pipeline.bookkeeping.instant-transport"
    static let suspendingID = "pipeline.bookkeeping.suspending-transport"

    func run() {
        for (id, suspends) in [(Self.instantID, false), (Self.suspendingID, true)] where options.selects(id) {
            measure(id: id, suspends: suspends)
        }
    }

    private func measure(id: String, suspends: Bool) {
        let transport = ImmediateTransport(suspends: suspends)
        let loader = DataLoader(transport: transport)
        let pipeline = ImagePipeline(configuration: .init(dataLoader: loader, decoder: ImageDecoderRegistry()))
        let urls = Counter()
        let viaPipeline: Batch = { ops in
            let first = urls.take(ops)
            return runBlocking {
                let start = processCPUSeconds()
                for i in first..<(first + ops) {
                    blackHole(try? await pipeline.data(for: ImmediateTransport.url(i)))
                }
                return (processCPUSeconds() - start) * 1e9
            }
        }
        let viaLoader: Batch = { ops in
            let first = urls.take(ops)
            return runBlocking {
                let start = processCPUSeconds()
                for i in first..<(first + ops) {
                    blackHole(try? await loader.load(URLRequest(url: ImmediateTransport.url(i)), options: DataLoadOptions()))
                }
                return (processCPUSeconds() - start) * 1e9
            }
        }
        let result = Interleave.compare(plan: plan, limit: 20_000_000, candidate: viaPipeline, reference: viaLoader)
        let bookkeeping = (result.candidate.median - result.reference.median) / 1_000
        let label = suspends ? "a transport that suspends once and answers" : "a transport that answers at once"
        report.add(Row(
            id: id, targetID: suspends ? "" : "A7",
            figure: "Pipeline bookkeeping per request: ImagePipeline.data(for:) minus DataLoader.load alone, distinct URLs, no caches, \(label)",
            pictor: String(format: "%.1f µs per request (pipeline %@, loader %@)", bookkeeping,
                           formatDuration(result.candidate.median), formatDuration(result.reference.median)),
            reference: "DataLoader.load: \(formatDuration(result.reference.median))",
            ratio: bookkeeping, ratioKind: "µs", goal: suspends ? .none : .valueAtMost(6),
            pictorValue: result.candidate.median, referenceValue: result.reference.median))
    }
}

/// A transport with no network: a small JPEG-looking body, status 200, no cache headers.
private struct ImmediateTransport: DataTransport {
    let suspends: Bool
    static let body = Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 1_020))

    static func url(_ i: Int) -> URL { URL(string: "http://bench.invalid/images/\(i).jpg")! }

    nonisolated(nonsending) func send(_ request: TransportRequest) async throws -> TransportResponse {
        if suspends { await Task.yield() }
        let head = HTTPResponseHead(url: request.urlRequest.url!, statusCode: 200, fields: [
            .init(name: "Content-Type", value: "image/jpeg"), .init(name: "Content-Length", value: "\(Self.body.count)"),
        ])
        return TransportResponse(head: head, body: Self.body)
    }
}

/// Hands out fresh URL numbers, so no request is ever coalesced or served from a cache.
private final class Counter: @unchecked Sendable {
    private var next = 0
    func take(_ n: Int) -> Int { defer { next += n }; return next }
}

extension BookkeepingBenchmarks {
    /// `PictorBenchmarks --probe-bookkeeping pipeline|loader N`: N requests one way, then exit,
    /// for `perf stat -e instructions:u`, whose counts stay steady on a busy machine where
    /// times do not. The difference of the two per request is the bookkeeping in instructions.
    static func probe(_ arguments: [String]) -> Bool {
        guard let at = arguments.firstIndex(of: "--probe-bookkeeping"), arguments.count > at + 2,
              let count = Int(arguments[at + 2]) else { return false }
        let viaPipeline = arguments[at + 1] == "pipeline"
        let loader = DataLoader(transport: ImmediateTransport(suspends: arguments.contains("--suspending")))
        let pipeline = ImagePipeline(configuration: .init(dataLoader: loader, decoder: ImageDecoderRegistry()))
        let cpu = runBlocking {
            let start = processCPUSeconds()
            for i in 0..<count {
                if viaPipeline {
                    blackHole(try? await pipeline.data(for: ImmediateTransport.url(i)))
                } else {
                    blackHole(try? await loader.load(URLRequest(url: ImmediateTransport.url(i)), options: DataLoadOptions()))
                }
            }
            return processCPUSeconds() - start
        }
        print(String(format: "%@: %.2f µs CPU per request", viaPipeline ? "pipeline" : "loader", cpu / Double(count) * 1e6))
        return true
    }
}
