/// One reading of the kernel's memory-pressure sources, as ``MemoryPressureMonitor`` takes it.
///
/// Linux sends a process no memory warning; it keeps three records that say the same thing:
/// - the cgroup v2 `memory.events` counters of the process's own cgroup: `high` counts the
///   times the group went over `memory.high` and was throttled (reclaim), `max` the times it
///   hit `memory.max`, `oom` and `oom_kill` the times the OOM killer was invoked or killed;
/// - pressure stall information (PSI) triggers on `memory.pressure` of the cgroup, or
///   `/proc/pressure/memory`: a file descriptor that becomes readable (`POLLPRI`) when tasks
///   stalled on memory longer than a threshold within a window;
/// - `memory.current` beside `memory.high` and `memory.max`, read on a timer where neither of
///   the above exists.
enum MemoryPressureSignal: Sendable, Equatable {
    /// The `memory.events` counters, read whole.
    case events(MemoryEventCounts)
    /// A PSI trigger fired: `full` (every task stalled) or only `some`.
    case stall(full: Bool)
    /// The cgroup's usage and limits, in bytes (`nil`: no limit, `max`).
    case usage(current: Int, high: Int?, max: Int?)
}

/// The counters of a cgroup v2 `memory.events` file that tell of pressure.
struct MemoryEventCounts: Sendable, Equatable {
    var high = 0
    var max = 0
    var oom = 0
    var oomKill = 0

    /// Parses `memory.events` (`key value` lines); unknown keys are ignored, `nil` when no
    /// known counter is present (not such a file).
    init?(parsing text: String) {
        var found = false
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count == 2, let value = Int(fields[1]), value >= 0 else { continue }
            switch fields[0] {
            case "high": high = value; found = true
            case "max": max = value; found = true
            case "oom": oom = value; found = true
            case "oom_kill": oomKill = value; found = true
            default: continue
            }
        }
        guard found else { return nil }
    }

    init(high: Int = 0, max: Int = 0, oom: Int = 0, oomKill: Int = 0) {
        self.high = high
        self.max = max
        self.oom = oom
        self.oomKill = oomKill
    }
}
