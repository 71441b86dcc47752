import Foundation

/// A server started for the service rows, with every process it forks (nginx's workers,
/// thumbor's children): their CPU time and peak resident sets are read from `/proc`, so a peer
/// that spreads its work over several processes is counted whole.
final class ProcessTree {
    let pid: pid_t
    let name: String
    /// The tree as last seen alive, kept so that processes whose parent has gone are still
    /// stopped and counted.
    private var known: Set<pid_t>
    private var reaped = false

    /// Starts `path` with `arguments`, standard output and error appended to the given files
    /// (or /dev/null).
    init(name: String, _ path: String, _ arguments: [String], stdout: String? = nil, stderr: String? = nil) throws {
        self.name = name
        pid = try Self.spawn(path, arguments, stdout: stdout ?? "/dev/null", stderr: stderr ?? "/dev/null")
        known = [pid]
    }

    static func spawn(_ path: String, _ arguments: [String], stdout: String, stderr: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard rc == 0 else { throw BenchError("cannot start \(path): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// The root and its live descendants (zombies left out).
    func members() -> [pid_t] {
        let table = ProcStat.table()
        var tree: Set<pid_t> = [], visited: Set<pid_t> = []
        var frontier = [pid]
        while let next = frontier.popLast() {
            guard let entry = table[next], visited.insert(next).inserted else { continue }
            if entry.state != "Z" { tree.insert(next) }
            frontier += table.filter { $0.value.parent == next }.map(\.key)
        }
        // A child whose parent exited is re-parented away from the tree; it is still ours.
        for old in known where !tree.contains(old) {
            if let entry = table[old], entry.state != "Z" { tree.insert(old) }
        }
        known = tree
        return tree.sorted()
    }

    /// User + system CPU of every live process of the tree so far, nanoseconds.
    func cpuNanoseconds() -> Double {
        let table = ProcStat.table()
        return members().reduce(0) { $0 + (table[$1]?.cpuNanoseconds ?? 0) }
    }

    /// Sum over the tree's processes of each one's peak resident set (`VmHWM`), bytes. Pages
    /// shared between processes (a forked interpreter's) count once per process.
    func peakRSSBytes() -> Double {
        members().reduce(0) { $0 + ProcStat.peakRSS($1) }
    }

    /// Whether the root process has exited (and is reaped).
    var hasExited: Bool {
        if reaped { return true }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { reaped = true }
        return reaped
    }

    /// Waits for the root to exit by itself; returns its exit status (128 + signal when killed).
    @discardableResult
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped = true
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// SIGTERM to each process of the tree (thumbor's parent does not pass it on to its
    /// children), then SIGKILL to any still there after `timeout` seconds. Only these PIDs are
    /// signalled.
    func stop(timeout: Double = 10) {
        let tree = members()
        for member in tree { kill(member, SIGTERM) }
        let deadline = nowNanoseconds() + UInt64(timeout * 1e9)
        while nowNanoseconds() < deadline {
            _ = hasExited
            if reaped && tree.allSatisfy({ !ProcStat.isAlive($0) }) { return }
            usleep(20_000)
        }
        for member in tree where ProcStat.isAlive(member) { kill(member, SIGKILL) }
        if !reaped { wait() }
    }

    /// Waits until the tree's CPU time stops growing (work still in flight after a load ends,
    /// or a warm-up's), at most `limit` seconds; returns the CPU time then.
    @discardableResult
    func settle(limit: Double = 5) -> Double {
        var last = cpuNanoseconds()
        let deadline = nowNanoseconds() + UInt64(limit * 1e9)
        while nowNanoseconds() < deadline {
            usleep(200_000)
            let now = cpuNanoseconds()
            // One clock tick (10 ms) of noise over 200 ms is idle.
            if now - last <= 10_000_000 { return now }
            last = now
        }
        return last
    }
}

/// What `/proc/<pid>/stat` and `status` say about a process.
enum ProcStat {
    struct Entry {
        var parent: pid_t
        var state: Character
        var cpuNanoseconds: Double
    }

    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// Every process on the machine by PID (read once; the table is small).
    static func table() -> [pid_t: Entry] {
        var result: [pid_t: Entry] = [:]
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return result }
        for name in names {
            guard let pid = pid_t(name), let entry = entry(pid) else { continue }
            result[pid] = entry
        }
        return result
    }

    /// Fields after the command name, which may itself hold spaces and parentheses:
    /// state (3), ppid (4), …, utime (14), stime (15).
    static func entry(_ pid: pid_t) -> Entry? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let state = fields[0].first, let parent = pid_t(fields[1]),
              let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return Entry(parent: parent, state: state, cpuNanoseconds: (user + system) / ticksPerSecond * 1e9)
    }

    static func isAlive(_ pid: pid_t) -> Bool {
        guard let entry = entry(pid) else { return false }
        return entry.state != "Z"
    }

    /// `VmHWM` of one process, bytes (0 when it has gone).
    static func peakRSS(_ pid: pid_t) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Double(line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
        }
        return 0
    }
}
