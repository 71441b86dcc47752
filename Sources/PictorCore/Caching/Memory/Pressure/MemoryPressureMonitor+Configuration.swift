extension MemoryPressureMonitor {
    /// Where a ``MemoryPressureMonitor`` looks and how often.
    public struct Configuration: Sendable, Hashable {
        /// A stall threshold for a PSI trigger: tasks stalled on memory for `threshold` seconds
        /// in total within any `window` seconds.
        public struct Stall: Sendable, Hashable {
            /// Seconds of stall that fire the trigger.
            public var threshold: Double
            /// The window, in seconds; the kernel accepts 0.5–10 s, and only multiples of 2 s
            /// from an unprivileged process.
            public var window: Double

            /// Creates a stall threshold.
            public init(threshold: Double, window: Double) {
                self.threshold = threshold
                self.window = window
            }
        }

        /// The file system root under which `/proc` and `/sys/fs/cgroup` are read; `/` by
        /// default (tests give a fake tree).
        public var root: String
        /// Seconds between readings of `memory.events` or the usage files; `2` by default.
        public var interval: Double
        /// Seconds during which a level, once delivered, is not delivered again (a higher one
        /// is); `5` by default.
        public var minimumInterval: Double
        /// The `some` stall that reports ``MemoryPressureLevel/moderate``: 0.2 s within 2 s by
        /// default (10 % of the time some task waited on memory); `nil`: no trigger.
        public var moderateStall: Stall?
        /// The `full` stall that reports ``MemoryPressureLevel/critical``: 0.2 s within 2 s by
        /// default (every task stalled for a tenth of the time); `nil`: no trigger.
        public var criticalStall: Stall?

        /// Creates a configuration; each parameter defaults to the value documented on its property.
        public init(
            root: String = "/", interval: Double = 2, minimumInterval: Double = 5,
            moderateStall: Stall? = Stall(threshold: 0.2, window: 2),
            criticalStall: Stall? = Stall(threshold: 0.2, window: 2)
        ) {
            self.root = root
            self.interval = interval
            self.minimumInterval = minimumInterval
            self.moderateStall = moderateStall
            self.criticalStall = criticalStall
        }
    }
}
