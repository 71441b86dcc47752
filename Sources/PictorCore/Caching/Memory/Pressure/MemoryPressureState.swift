/// What the monitor makes of its readings: when to tell the caches, and how hard.
///
/// A pure state machine (no I/O, no clock of its own): each reading returns the level to
/// deliver, or `nil`. Rules:
/// - `memory.events`: a rise of `high` is ``MemoryPressureLevel/moderate``; a rise of `max`,
///   `oom` or `oom_kill` is ``MemoryPressureLevel/critical``. The first reading only sets the
///   baseline: counts from before the process started say nothing about now.
/// - PSI: a `some` trigger is moderate, a `full` one critical.
/// - Usage: at or over `memory.high`, or over ``moderateFraction`` of `memory.max`, is
///   moderate; over ``criticalFraction`` of `memory.max` is critical.
/// - Deliveries are spaced: after one, a signal of the same or a lower level within
///   ``minimumInterval`` seconds is dropped (a cache already trimmed needs a moment to refill
///   before trimming again helps); a higher level always goes through.
struct MemoryPressureState: Sendable {
    /// Seconds between two deliveries of the same level.
    var minimumInterval: Double
    /// Fraction of `memory.max` at which usage counts as moderate pressure.
    var moderateFraction: Double
    /// Fraction of `memory.max` at which usage counts as critical pressure.
    var criticalFraction: Double

    private var baseline: MemoryEventCounts?
    private var lastDelivery: (level: MemoryPressureLevel, at: Double)?

    init(minimumInterval: Double, moderateFraction: Double = 0.9, criticalFraction: Double = 0.97) {
        self.minimumInterval = minimumInterval
        self.moderateFraction = moderateFraction
        self.criticalFraction = criticalFraction
    }

    /// The level to deliver for `signal` read at `now` (seconds, any monotonic origin), or `nil`.
    mutating func observe(_ signal: MemoryPressureSignal, now: Double) -> MemoryPressureLevel? {
        guard let level = level(of: signal) else { return nil }
        if let last = lastDelivery, now - last.at < minimumInterval, !(level == .critical && last.level == .moderate) {
            return nil
        }
        lastDelivery = (level, now)
        return level
    }

    private mutating func level(of signal: MemoryPressureSignal) -> MemoryPressureLevel? {
        switch signal {
        case .events(let counts):
            defer { baseline = counts }
            guard let old = baseline else { return nil }
            // A counter that went down belongs to another cgroup (the process moved): a new baseline.
            if counts.max > old.max || counts.oom > old.oom || counts.oomKill > old.oomKill { return .critical }
            if counts.high > old.high { return .moderate }
            return nil
        case .stall(let full):
            return full ? .critical : .moderate
        case .usage(let current, let high, let max):
            if let max, max > 0, Double(current) >= criticalFraction * Double(max) { return .critical }
            if let high, high > 0, current >= high { return .moderate }
            if let max, max > 0, Double(current) >= moderateFraction * Double(max) { return .moderate }
            return nil
        }
    }
}
