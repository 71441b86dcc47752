import Foundation
import Synchronization

/// One run of a child process with what the kernel accounted to it: wall time and CPU time (user
/// + system) read with `wait4(2)`, and peak resident memory from GNU `time` (`%M`).
///
/// The peak cannot come from `wait4` of a direct child: Linux carries a process's RSS high-water
/// mark across `fork` and `exec`, so a child of this (large) benchmark process would report this
/// process's size. GNU `time` is small, and its own child's figure is the program's alone.
struct MeasuredRun {
    var status: Int32
    /// Wall time, nanoseconds.
    var wallNanoseconds: Double
    /// User + system CPU, nanoseconds.
    var cpuNanoseconds: Double
    /// Peak resident set, bytes (`ru_maxrss`).
    var peakRSSBytes: Double

    /// GNU time, for the peak RSS (Debian's `time` package); without it the peak is not measured.
    static let gnuTime: String? = FileManager.default.isExecutableFile(atPath: "/usr/bin/time") ? "/usr/bin/time" : nil

    /// Runs `path` with `arguments`, standard output and error to /dev/null (or standard output
    /// to the file `output`, truncated first).
    static func run(_ path: String, _ arguments: [String], output: String? = nil) throws -> MeasuredRun {
        try start(path, arguments, output: output).wait()
    }

    /// A child started with ``start(_:_:output:)``, not yet waited for.
    struct Pending {
        let pid: pid_t
        let started: UInt64
        let peakFile: String?

        /// Waits for the child (`wait4`); its wall time runs from its start to this return, so
        /// waiting for several in turn gives the later ones an upper bound.
        func wait() -> MeasuredRun {
            defer { if let peakFile { unlink(peakFile) } }
            var status: Int32 = 0
            var usage = rusage()
            while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
            let wall = Double(nowNanoseconds() - started)
            func ns(_ t: timeval) -> Double { Double(t.tv_sec) * 1e9 + Double(t.tv_usec) * 1e3 }
            let exited = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            let peakKB = peakFile.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }
                .flatMap { Double($0.split(separator: "\n").last.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "") }
            return MeasuredRun(status: exited, wallNanoseconds: wall, cpuNanoseconds: ns(usage.ru_utime) + ns(usage.ru_stime),
                               peakRSSBytes: (peakKB ?? .nan) * 1024)
        }
    }

    /// Starts `path` with `arguments` (under GNU time when there is one) without waiting, so
    /// that several can run at once; standard error to /dev/null, standard output too unless
    /// `output` names a file for it.
    static func start(_ path: String, _ arguments: [String], output: String? = nil) throws -> Pending {
        guard let gnuTime else { return try spawn(path, arguments, peakFile: nil, output: output) }
        let peakFile = NSTemporaryDirectory() + "pictor-bench-peak-\(getpid())-\(peakCounter.add(1, ordering: .relaxed).newValue)"
        return try spawn(gnuTime, ["-f", "%M", "-o", peakFile, path] + arguments, peakFile: peakFile, output: output)
    }

    private static let peakCounter = Atomic<Int>(0)

    private static func spawn(_ path: String, _ arguments: [String], peakFile: String?, output: String?) throws -> Pending {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let output {
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let start = nowNanoseconds()
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard rc == 0 else { throw BenchError("cannot start \(path): \(String(cString: strerror(rc)))") }
        return Pending(pid: pid, started: start, peakFile: peakFile)
    }
}

/// CPU time of this process so far (user + system), nanoseconds.
func processCPUNanoseconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e9
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e3
}
