import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Trims memory caches on the kernel's own memory-pressure signals, as the Apple-platform
/// libraries do on a system memory warning (Linux sends a process none).
///
/// It watches, in the process's own cgroup v2:
/// - `memory.events`: a rise of `high` (reclaim throttling over `memory.high`) reports
///   ``MemoryPressureLevel/moderate``; a rise of `max`, `oom` or `oom_kill` reports
///   ``MemoryPressureLevel/critical``;
/// - PSI triggers on the cgroup's `memory.pressure` (else `/proc/pressure/memory`): a
///   ``Configuration/moderateStall`` of `some` tasks reports moderate, a
///   ``Configuration/criticalStall`` of `full` reports critical. The kernel may refuse triggers
///   to an unprivileged process (before Linux 6.5) or with a window that is not a multiple of
///   2 s; they are then skipped;
/// - where neither exists, a timer every ``Configuration/interval`` seconds reads
///   `memory.current` against `memory.high` (moderate when reached) and `memory.max`
///   (moderate over 90 %, critical over 97 %).
///
/// Each registered responder (a cache) gets the level through
/// ``MemoryPressureResponding/handleMemoryPressure(_:)``, at most once per
/// ``Configuration/minimumInterval`` for a level (a higher level always goes through).
/// ``ImageCache`` registers itself with ``shared`` unless its configuration says otherwise.
///
/// ```swift
/// let thumbnails = MemoryCache<String, Data>(costLimit: 64 << 20)
/// MemoryPressureMonitor.shared.register(thumbnails)
/// ```
///
/// - Important: Thread-safe. Responders are held weakly. The watching thread starts with the
///   first registration, only when there is something to watch (``isWatching``), and lives
///   until ``stop()``; it sleeps in `poll(2)`, waking every ``Configuration/interval``.
public final class MemoryPressureMonitor: Sendable {
    /// The process-wide monitor that ``ImageCache`` registers with, on the real file system.
    public static let shared = MemoryPressureMonitor()

    /// The configuration the monitor was created with.
    public let configuration: Configuration
    let sources: MemoryPressureSources

    private struct Weak: @unchecked Sendable {
        // Only read through `value`; the referent is Sendable.
        weak var value: (any MemoryPressureResponding)?
    }

    private struct State {
        var responders: [Weak] = []
        var started = false
        var stopped = false
        var machine: MemoryPressureState
        var delivered: [MemoryPressureLevel: Int] = [:]
    }

    private let state: Mutex<State>

    /// Creates a monitor; it watches nothing until something is registered.
    ///
    /// - Parameter configuration: where to look and how often; the defaults of
    ///   ``Configuration`` by default.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let root = configuration.root.hasSuffix("/") ? configuration.root : configuration.root + "/"
        sources = MemoryPressureSources.discover(
            root: root, exists: { access($0, R_OK) == 0 },
            readFile: { try? String(contentsOfFile: $0, encoding: .utf8) })
        state = Mutex(State(machine: MemoryPressureState(minimumInterval: configuration.minimumInterval)))
    }

    /// What the monitor reads, for logs: for example
    /// `["/sys/fs/cgroup/app.slice/memory.events", "/sys/fs/cgroup/app.slice/memory.pressure"]`;
    /// empty when the kernel offers nothing to watch.
    public var watchedFiles: [String] {
        [sources.events, sources.pressure, sources.usage?.current].compactMap { $0 }
    }

    /// Whether a watching thread runs (something is registered and there is something to watch).
    public var isWatching: Bool { state.withLock { $0.started && !$0.stopped } }

    /// How many times each level was delivered so far.
    public var deliveries: [MemoryPressureLevel: Int] { state.withLock { $0.delivered } }

    /// Adds `responder` (held weakly) and starts watching if this is the first one.
    public func register(_ responder: any MemoryPressureResponding) {
        let start = state.withLock { s -> Bool in
            s.responders.removeAll { $0.value == nil }
            s.responders.append(Weak(value: responder))
            guard !s.started, !s.stopped, !sources.isEmpty else { return false }
            s.started = true
            return true
        }
        if start {
            let thread = Thread { [self] in watch() }
            thread.name = "pictor-memory-pressure"
            thread.start()
        }
    }

    /// Stops the watching thread within ``Configuration/interval``; later registrations start
    /// nothing.
    public func stop() {
        state.withLock { $0.stopped = true }
    }

    /// Hands `signal` to the state machine and the level it returns to every live responder.
    func handle(_ signal: MemoryPressureSignal, now: Double) {
        let (level, responders) = state.withLock { s -> (MemoryPressureLevel?, [any MemoryPressureResponding]) in
            guard let level = s.machine.observe(signal, now: now) else { return (nil, []) }
            s.delivered[level, default: 0] += 1
            s.responders.removeAll { $0.value == nil }
            return (level, s.responders.compactMap(\.value))
        }
        guard let level else { return }
        for responder in responders { responder.handleMemoryPressure(level) }
    }

    /// Reads the files that need no trigger (`memory.events`, or the usage files) once.
    func readPolledSources(now: Double) {
        if let events = sources.events, let text = Self.read(events), let counts = MemoryEventCounts(parsing: text) {
            handle(.events(counts), now: now)
        }
        if let usage = sources.usage, let current = Self.read(usage.current).flatMap(Self.bytes) {
            handle(.usage(current: current, high: Self.read(usage.high).flatMap(Self.bytes),
                          max: Self.read(usage.max).flatMap(Self.bytes)), now: now)
        }
    }

    private func watch() {
        var triggers: [(fd: Int32, full: Bool)] = []
        if let pressure = sources.pressure {
            for (stall, full) in [(configuration.moderateStall, false), (configuration.criticalStall, true)] {
                if let stall, let fd = Self.trigger(pressure, kind: full ? "full" : "some", stall: stall) {
                    triggers.append((fd, full))
                }
            }
        }
        defer { for trigger in triggers { close(trigger.fd) } }
        let clock = ContinuousClock()
        let origin = clock.now
        func now() -> Double { (clock.now - origin).seconds }
        readPolledSources(now: now())
        let timeout = Int32(clamping: Int(configuration.interval * 1000))
        while !state.withLock({ $0.stopped }) {
            var fds = triggers.map { pollfd(fd: $0.fd, events: Int16(POLLPRI), revents: 0) }
            let ready = fds.isEmpty ? { Thread.sleep(forTimeInterval: configuration.interval); return Int32(0) }()
                                    : poll(&fds, nfds_t(fds.count), timeout)
            if ready > 0 {
                for (i, pfd) in fds.enumerated() where pfd.revents & Int16(POLLPRI) != 0 {
                    handle(.stall(full: triggers[i].full), now: now())
                }
                if fds.contains(where: { $0.revents & Int16(POLLERR | POLLNVAL) != 0 }) {
                    // The trigger is gone (its cgroup was removed): poll on without it.
                    let dead = Set(fds.indices.filter { fds[$0].revents & Int16(POLLERR | POLLNVAL) != 0 })
                    for i in dead { close(triggers[i].fd) }
                    triggers = triggers.enumerated().filter { !dead.contains($0.offset) }.map(\.element)
                }
                // A stall fires again for as long as it lasts: no faster than every 100 ms.
                Thread.sleep(forTimeInterval: 0.1)
            }
            readPolledSources(now: now())
        }
    }

    /// Opens a PSI trigger on `path`: `kind` (`some` or `full`) tasks stalled for `stall`'s
    /// threshold within its window; `nil` when the kernel refuses it.
    private static func trigger(_ path: String, kind: String, stall: Configuration.Stall) -> Int32? {
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let text = "\(kind) \(Int(stall.threshold * 1_000_000)) \(Int(stall.window * 1_000_000))"
        let written = text.withCString { write(fd, $0, strlen($0) + 1) }
        guard written > 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    private static func read(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }

    /// A cgroup byte value; `nil` for `max` or garbage.
    private static func bytes(_ text: String) -> Int? {
        Int(text.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0 >= 0 ? $0 : nil }
    }
}
