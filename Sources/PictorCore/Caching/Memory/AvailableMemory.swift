import Foundation

/// The memory this process may use, in bytes: the tightest cgroup memory limit that applies to
/// it (containers, systemd slices), else the machine's physical memory.
///
/// Sources, in order:
/// 1. cgroup v2: `memory.max` of the process's own cgroup (the `0::<path>` line of
///    `/proc/self/cgroup`) and of every ancestor up to the root, under `/sys/fs/cgroup` or, on
///    hybrid hosts, `/sys/fs/cgroup/unified`; `max` means no limit. The smallest value wins,
///    since a parent's limit caps its children.
/// 2. cgroup v1: `memory.limit_in_bytes` in the same way under `/sys/fs/cgroup/memory`; values of
///    2⁶² bytes or more are the kernel's "no limit".
/// 3. `ProcessInfo.physicalMemory` (`/proc/meminfo` `MemTotal`), which also caps the result.
public enum AvailableMemory {
    /// The memory available to this process, in bytes; read from the files above on each call.
    public static var bytes: Int {
        bytes(physicalMemory: Int(clamping: ProcessInfo.processInfo.physicalMemory)) { path in
            try? String(contentsOfFile: path, encoding: .utf8)
        }
    }

    /// The smallest cgroup limit found through `readFile`, capped by `physicalMemory` (bytes).
    ///
    /// - Parameters:
    ///   - physicalMemory: The machine's memory in bytes.
    ///   - readFile: Returns a file's text, or `nil` when it does not exist; injected for tests.
    static func bytes(physicalMemory: Int, readFile: (String) -> String?) -> Int {
        min(physicalMemory, cgroupLimit(readFile: readFile) ?? .max)
    }

    /// The tightest cgroup v2 (else v1) memory limit in bytes, or `nil` when there is none.
    static func cgroupLimit(readFile: (String) -> String?) -> Int? {
        guard let table = readFile("/proc/self/cgroup") else { return nil }
        var v2Path: String?, v1Path: String?
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[0] == "0" && fields[1].isEmpty { v2Path = String(fields[2]) }
            if fields[1].split(separator: ",").contains("memory") { v1Path = String(fields[2]) }
        }
        if let path = v2Path {
            for root in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
                if let limit = smallestLimit(root: root, path: path, file: "memory.max", readFile: readFile) {
                    return limit
                }
            }
        }
        if let path = v1Path {
            return smallestLimit(root: "/sys/fs/cgroup/memory", path: path,
                                 file: "memory.limit_in_bytes", readFile: readFile)
        }
        return nil
    }

    /// The smallest limit in `file` of `root + path` and its ancestors (and of `root` itself,
    /// which is what a container with its own cgroup namespace sees).
    static func smallestLimit(root: String, path: String, file: String, readFile: (String) -> String?) -> Int? {
        var components = path.split(separator: "/").map(String.init)
        var smallest: Int?
        while true {
            let directory = components.isEmpty ? root : root + "/" + components.joined(separator: "/")
            if let text = readFile(directory + "/" + file), let limit = parseLimit(text) {
                smallest = min(smallest ?? .max, limit)
            }
            if components.isEmpty { break }
            components.removeLast()
        }
        return smallest
    }

    /// A limit file's value in bytes; `nil` for `max`, garbage, or the v1 "unlimited" values
    /// (2⁶² bytes and above).
    static func parseLimit(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = Int(trimmed), value > 0, value < (1 << 62) else { return nil }
        return value
    }
}
