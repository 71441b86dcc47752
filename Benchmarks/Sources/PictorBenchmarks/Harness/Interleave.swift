import Foundation
import Synchronization

/// How a benchmark's batches are sized and repeated.
struct RunPlan {
    /// Warm-up rounds of each side before measuring (not recorded).
    var warmup: Int
    /// Measured A/B pairs.
    var pairs: Int
    /// Target wall time of one batch, in nanoseconds (operation batches are sized to it).
    var batchNanoseconds: Double

    static let full = RunPlan(warmup: 2, pairs: 11, batchNanoseconds: 20_000_000)
    static let quick = RunPlan(warmup: 1, pairs: 7, batchNanoseconds: 8_000_000)
}

/// One side of a comparison: runs `n` operations and returns the time they took in nanoseconds,
/// excluding any set-up it does itself.
typealias Batch = (_ operations: Int) -> Double

/// The result of an interleaved A/B comparison, in nanoseconds per operation.
struct ABResult {
    var candidate: Summary
    var reference: Summary
    /// Median of the per-pair ratios candidate time ÷ reference time.
    var timeRatio: Double
}

enum Interleave {
    /// Number of operations that makes one batch of `body` take about `plan.batchNanoseconds`,
    /// between 1 and `limit`.
    static func calibrate(_ body: Batch, plan: RunPlan, limit: Int) -> Int {
        var n = 1
        while true {
            let t = body(n)
            if t >= plan.batchNanoseconds / 4 || n >= limit {
                let scaled = Double(n) * plan.batchNanoseconds / max(t, 1)
                return Swift.max(1, Swift.min(limit, Int(scaled)))
            }
            n = Swift.min(limit, n * 8)
        }
    }

    /// Runs candidate and reference in alternating order (A B, B A, …) after a warm-up, so that
    /// machine drift hits both, and summarizes nanoseconds per operation.
    static func compare(plan: RunPlan, limit: Int = 50_000_000, candidate: Batch, reference: Batch) -> ABResult {
        let nA = calibrate(candidate, plan: plan, limit: limit)
        let nB = calibrate(reference, plan: plan, limit: limit)
        for _ in 0..<plan.warmup { _ = candidate(nA); _ = reference(nB) }
        var a: [Double] = [], b: [Double] = [], ratios: [Double] = []
        for pair in 0..<plan.pairs {
            let ta: Double, tb: Double
            if pair % 2 == 0 {
                ta = candidate(nA) / Double(nA); tb = reference(nB) / Double(nB)
            } else {
                tb = reference(nB) / Double(nB); ta = candidate(nA) / Double(nA)
            }
            a.append(ta); b.append(tb); ratios.append(ta / tb)
        }
        return ABResult(candidate: Summary(a), reference: Summary(b), timeRatio: Summary(ratios).median)
    }

    /// Times one side alone (for figures with no reference), nanoseconds per operation.
    static func measure(plan: RunPlan, limit: Int = 50_000_000, _ body: Batch) -> Summary {
        let n = calibrate(body, plan: plan, limit: limit)
        for _ in 0..<plan.warmup { _ = body(n) }
        return Summary((0..<plan.pairs).map { _ in body(n) / Double(n) })
    }

    /// Runs `body` on `threads` threads at once, each doing `operations / threads` operations
    /// (thread index passed in), and returns the wall time of the whole batch.
    static func parallel(threads: Int, operations: Int, _ body: @escaping @Sendable (_ thread: Int, _ operations: Int) -> Void) -> Double {
        if threads == 1 {
            let start = nowNanoseconds()
            body(0, operations)
            return Double(nowNanoseconds() - start)
        }
        let per = Swift.max(1, operations / threads)
        let start = nowNanoseconds()
        DispatchQueue.concurrentPerform(iterations: threads) { body($0, per) }
        return Double(nowNanoseconds() - start) * Double(operations) / Double(per * threads)
    }
}

extension Interleave {
    /// Interleaved A/B rounds of whole passes (each side's closure runs one pass and returns its
    /// wall time in ns); per-item figures are the pass time ÷ `items`.
    static func comparePasses(plan: RunPlan, items: Int, candidate: () -> Double, reference: () -> Double) -> ABResult {
        for _ in 0..<plan.warmup { _ = candidate(); _ = reference() }
        var a: [Double] = [], b: [Double] = [], ratios: [Double] = []
        let n = Double(max(1, items))
        for pair in 0..<plan.pairs {
            let ta: Double, tb: Double
            if pair % 2 == 0 { ta = candidate() / n; tb = reference() / n }
            else { tb = reference() / n; ta = candidate() / n }
            a.append(ta); b.append(tb); ratios.append(ta / tb)
        }
        return ABResult(candidate: Summary(a), reference: Summary(b), timeRatio: Summary(ratios).median)
    }
}

/// Runs an async closure to completion from synchronous benchmark code.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.set(await body())
        done.signal()
    }
    done.wait()
    return box.get()
}

/// A write-once slot for ``runBlocking(_:)``.
private final class ResultBox<T: Sendable>: Sendable {
    private let value = Mutex<T?>(nil)
    func set(_ v: T) { value.withLock { $0 = v } }
    func get() -> T { value.withLock { $0! } }
}
