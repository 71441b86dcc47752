/// How hard a process is pressed for memory, as reported to
/// ``MemoryCache/handleMemoryPressure(_:)`` and ``ImageCache/handleMemoryPressure(_:)``.
///
/// Linux has no system memory-warning source (there is no `DispatchSource` memory-pressure
/// source there): ``MemoryPressureMonitor`` reads the kernel's own records (cgroup
/// `memory.events`, PSI triggers, usage against `memory.high`) and delivers these levels;
/// an application can also call the caches itself (an admin endpoint).
public enum MemoryPressureLevel: Sendable, Hashable, CaseIterable {
    /// Memory is getting short: expired entries go, then least recently used entries until the
    /// cache holds at most half of its current cost and half of its current count.
    case moderate
    /// Memory is short: every entry goes. This is what the Apple-platform libraries (SDWebImage,
    /// Kingfisher, Nuke) do on a system memory warning.
    case critical
}
