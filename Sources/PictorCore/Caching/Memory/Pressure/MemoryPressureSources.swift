/// Which of the kernel's memory-pressure records a process can read, found from
/// `/proc/self/cgroup` (see `MemoryPressureSignal`).
struct MemoryPressureSources: Sendable, Equatable {
    /// The cgroup v2 `memory.events` of the process's own cgroup.
    var events: String?
    /// The PSI file to set triggers on: the cgroup's `memory.pressure`, else
    /// `/proc/pressure/memory` (the whole machine's).
    var pressure: String?
    /// `memory.current`, `memory.high` and `memory.max` of the process's own cgroup, read on a
    /// timer only when neither source above exists.
    var usage: (current: String, high: String, max: String)?

    static func == (a: Self, b: Self) -> Bool {
        a.events == b.events && a.pressure == b.pressure && a.usage?.current == b.usage?.current
            && a.usage?.high == b.usage?.high && a.usage?.max == b.usage?.max
    }

    /// Whether there is nothing to watch.
    var isEmpty: Bool { events == nil && pressure == nil && usage == nil }

    /// Looks under `root` (`/` in use; a fake tree in tests) for each source.
    ///
    /// - Parameters:
    ///   - root: The file system root, with a trailing `/`.
    ///   - exists: Whether a file exists; injected for tests.
    ///   - readFile: A file's text, or `nil`; injected for tests.
    static func discover(root: String, exists: (String) -> Bool, readFile: (String) -> String?) -> MemoryPressureSources {
        var sources = MemoryPressureSources()
        var cgroupDirectory: String?
        if let table = readFile(root + "proc/self/cgroup") {
            for line in table.split(separator: "\n") {
                let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                guard fields.count == 3, fields[0] == "0", fields[1].isEmpty else { continue }
                let path = fields[2].split(separator: "/").joined(separator: "/")
                for mount in ["sys/fs/cgroup", "sys/fs/cgroup/unified"] {
                    let directory = root + mount + (path.isEmpty ? "" : "/" + path)
                    if exists(directory + "/memory.events") || exists(directory + "/memory.current") {
                        cgroupDirectory = directory
                        break
                    }
                }
            }
        }
        if let directory = cgroupDirectory {
            if exists(directory + "/memory.events") { sources.events = directory + "/memory.events" }
            if exists(directory + "/memory.pressure") { sources.pressure = directory + "/memory.pressure" }
        }
        if sources.pressure == nil, exists(root + "proc/pressure/memory") {
            sources.pressure = root + "proc/pressure/memory"
        }
        if sources.events == nil, sources.pressure == nil, let directory = cgroupDirectory, exists(directory + "/memory.current") {
            sources.usage = (directory + "/memory.current", directory + "/memory.high", directory + "/memory.max")
        }
        return sources
    }
}
