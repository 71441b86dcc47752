import Foundation

/// Median, minimum and maximum of a set of samples.
struct Summary: Codable {
    var median: Double
    var min: Double
    var max: Double
    var samples: Int

    init(_ values: [Double]) {
        let sorted = values.sorted()
        samples = sorted.count
        min = sorted.first ?? .nan
        max = sorted.last ?? .nan
        if sorted.isEmpty { median = .nan }
        else if sorted.count % 2 == 1 { median = sorted[sorted.count / 2] }
        else { median = (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2 }
    }
}

/// Monotonic nanoseconds.
@inline(__always)
func nowNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Keeps the optimizer from discarding a result.
@inline(never)
func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

/// Process CPU time (user + system) in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(0, &usage)   // RUSAGE_SELF
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Peak resident set size of this process so far, in bytes (`VmHWM`).
func peakRSSBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kb = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kb * 1024
    }
    return 0
}

/// Formats nanoseconds with a unit that keeps three significant figures.
func formatDuration(_ ns: Double) -> String {
    if !ns.isFinite { return "n/a" }
    if ns < 1_000 { return String(format: "%.0f ns", ns) }
    if ns < 1_000_000 { return String(format: "%.2f µs", ns / 1_000) }
    if ns < 1_000_000_000 { return String(format: "%.2f ms", ns / 1_000_000) }
    return String(format: "%.2f s", ns / 1_000_000_000)
}

/// A fast seeded generator (SplitMix64) so that set-up does not pay a syscall per number.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
