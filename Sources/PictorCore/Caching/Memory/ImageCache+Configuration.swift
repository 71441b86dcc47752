extension ImageCache {
    /// The limits of an ``ImageCache``.
    public struct Configuration: Sendable, Hashable {
        /// Largest total decoded size kept, in bytes. By default
        /// ``defaultCostLimit(availableMemory:)`` of ``AvailableMemory/bytes``.
        public var costLimit: Int
        /// Largest number of images kept; `Int.max` (no limit) by default.
        public var countLimit: Int
        /// An image larger than this fraction of ``costLimit`` is not stored; `0.1` by default
        /// (Nuke's `ImageCache.entryCostLimit`), so one huge image cannot flush the cache.
        public var entryCostLimit: Double
        /// Time to live of each image in seconds; `nil` (no expiry) by default.
        public var ttl: Double?
        /// Whether the cache registers with ``MemoryPressureMonitor/shared`` and trims itself on
        /// the kernel's memory-pressure signals (half on moderate pressure, everything on
        /// critical); `true` by default, as the Apple-platform caches clear on a memory warning.
        public var trimsOnMemoryPressure: Bool = true

        /// Creates a configuration; every parameter defaults to the value documented on its
        /// property.
        public init(
            costLimit: Int = Configuration.defaultCostLimit(availableMemory: AvailableMemory.bytes),
            countLimit: Int = .max, entryCostLimit: Double = 0.1, ttl: Double? = nil
        ) {
            self.costLimit = costLimit
            self.countLimit = countLimit
            self.entryCostLimit = entryCostLimit
            self.ttl = ttl
        }

        /// The defaults, with the cost limit derived from the memory available to this process.
        public static var `default`: Configuration { Configuration() }

        /// Fraction of the available memory given to the image cache by default: `0.2`.
        ///
        /// Source: Nuke's `ImageCache` default cost limit, 20% of physical memory. A fifth keeps
        /// room for decode working sets (a 3000×2000 RGBA decode alone is 24 MB), processing
        /// buffers and the rest of a server process, while still holding thousands of 256 px
        /// thumbnails (256 KB each) on a 1 GB container.
        public static let defaultCostFraction = 0.2

        /// The default cost limit in bytes: ``defaultCostFraction`` × `availableMemory`, where
        /// `availableMemory` is the cgroup `memory.max` when one is set, else physical memory
        /// (see ``AvailableMemory``).
        public static func defaultCostLimit(availableMemory: Int) -> Int {
            Int(Double(max(0, availableMemory)) * defaultCostFraction)
        }
    }
}
