import PictorCore
import Synchronization

/// How long one stage of the pipeline's work took, each time it ran: a histogram with fixed
/// buckets, in seconds, as Prometheus keeps one.
public struct StageHistogram: Sendable, Hashable {
    /// The buckets' upper bounds, in seconds, ascending: 0.5 ms to 10 s. A duration is counted
    /// in the first bucket whose bound it does not exceed, or only in the total past the last.
    public static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// Durations in each bucket (not cumulative), one count per bound of ``bounds``.
    public var bucketCounts: [Int] = Array(repeating: 0, count: StageHistogram.bounds.count)
    /// Durations observed, every bucket and beyond.
    public var count = 0
    /// The sum of the durations observed, in seconds.
    public var sum = 0.0

    /// No duration observed.
    public init() {}

    /// Counts one duration.
    ///
    /// - Parameter seconds: the duration, in seconds (a negative one counts as 0).
    public mutating func observe(_ seconds: Double) {
        let value = max(0, seconds)
        if let bucket = Self.bounds.firstIndex(where: { value <= $0 }) { bucketCounts[bucket] += 1 }
        count += 1
        sum += value
    }

    /// Durations at or under each bound of ``bounds``, in order (Prometheus' `le` buckets).
    public var cumulativeCounts: [Int] {
        var total = 0
        return bucketCounts.map { count in
            total += count
            return total
        }
    }
}

/// The service's stage histograms, filled by the pipeline's stage observer from whatever
/// thread ran the stage.
final class StageTimings: Sendable {
    private let histograms = Mutex<[PipelineStage: StageHistogram]>([:])

    func record(_ stage: PipelineStage, _ duration: Duration) {
        let seconds = duration.seconds
        histograms.withLock { $0[stage, default: StageHistogram()].observe(seconds) }
    }

    /// A histogram for every stage, empty ones included.
    var snapshot: [PipelineStage: StageHistogram] {
        let recorded = histograms.withLock { $0 }
        var all: [PipelineStage: StageHistogram] = [:]
        for stage in PipelineStage.allCases { all[stage] = recorded[stage] ?? StageHistogram() }
        return all
    }
}
