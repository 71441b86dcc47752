import Foundation
import Testing
@testable import PictorCore

@Suite struct MemoryPressureStateTests {
    @Test func theFirstEventsReadingIsOnlyABaseline() {
        var machine = MemoryPressureState(minimumInterval: 0)
        #expect(machine.observe(.events(MemoryEventCounts(high: 40, max: 3)), now: 0) == nil)
        #expect(machine.observe(.events(MemoryEventCounts(high: 40, max: 3)), now: 1) == nil)
        #expect(machine.observe(.events(MemoryEventCounts(high: 41, max: 3)), now: 2) == .moderate)
        #expect(machine.observe(.events(MemoryEventCounts(high: 41, max: 4)), now: 3) == .critical)
        #expect(machine.observe(.events(MemoryEventCounts(high: 41, max: 4, oomKill: 1)), now: 4) == .critical)
        // A counter that went down (another cgroup) is a new baseline, not pressure
        #expect(machine.observe(.events(MemoryEventCounts(high: 2)), now: 5) == nil)
    }

    @Test func deliveriesAreSpacedButAHigherLevelGoesThrough() {
        var machine = MemoryPressureState(minimumInterval: 5)
        #expect(machine.observe(.stall(full: false), now: 10) == .moderate)
        #expect(machine.observe(.stall(full: false), now: 12) == nil)
        #expect(machine.observe(.stall(full: true), now: 13) == .critical)
        #expect(machine.observe(.stall(full: true), now: 14) == nil)
        #expect(machine.observe(.stall(full: false), now: 16) == nil)
        #expect(machine.observe(.stall(full: false), now: 18.5) == .moderate)
    }

    @Test func usageAgainstHighAndMax() {
        var machine = MemoryPressureState(minimumInterval: 0)
        #expect(machine.observe(.usage(current: 50, high: 100, max: nil), now: 0) == nil)
        #expect(machine.observe(.usage(current: 100, high: 100, max: nil), now: 1) == .moderate)
        #expect(machine.observe(.usage(current: 80, high: nil, max: 100), now: 2) == nil)
        #expect(machine.observe(.usage(current: 90, high: nil, max: 100), now: 3) == .moderate)
        #expect(machine.observe(.usage(current: 97, high: 200, max: 100), now: 4) == .critical)
        #expect(machine.observe(.usage(current: 10, high: nil, max: nil), now: 5) == nil)
    }

    @Test(arguments: [
        ("low 0\nhigh 7\nmax 2\noom 1\noom_kill 1\noom_group_kill 0\n", MemoryEventCounts(high: 7, max: 2, oom: 1, oomKill: 1)),
        ("high 3", MemoryEventCounts(high: 3)),
    ])
    func eventsParse(_ text: String, _ expected: MemoryEventCounts) {
        #expect(MemoryEventCounts(parsing: text) == expected)
    }

    @Test(arguments: ["", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0", "high -1", "high x"])
    func notAnEventsFile(_ text: String) {
        #expect(MemoryEventCounts(parsing: text) == nil)
    }
}

/// A fake `/proc` and `/sys/fs/cgroup` for the monitor.
final class FakeKernelTree: Sendable {
    let root: URL

    init(cgroup: String = "0::/system.slice/pictor.service\n") throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-pressure-\(UUID().uuidString)")
        try write("proc/self/cgroup", cgroup)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func write(_ path: String, _ text: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url, options: .atomic)
    }

    var path: String { root.path + "/" }

    func sources() -> MemoryPressureSources {
        MemoryPressureSources.discover(root: path, exists: { FileManager.default.fileExists(atPath: $0) },
                                       readFile: { try? String(contentsOfFile: $0, encoding: .utf8) })
    }
}

@Suite struct MemoryPressureSourcesTests {
    let service = "sys/fs/cgroup/system.slice/pictor.service"

    @Test func theOwnCgroupsEventsAndPressureAreWatched() throws {
        let tree = try FakeKernelTree()
        try tree.write("\(service)/memory.events", "high 0\nmax 0\n")
        try tree.write("\(service)/memory.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
        try tree.write("\(service)/memory.current", "1000\n")
        try tree.write("proc/pressure/memory", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
        let sources = tree.sources()
        #expect(sources.events == tree.path + "\(service)/memory.events")
        #expect(sources.pressure == tree.path + "\(service)/memory.pressure")
        #expect(sources.usage == nil)
    }

    @Test func theMachinesPressureWhenTheCgroupHasNone() throws {
        let tree = try FakeKernelTree()
        try tree.write("\(service)/memory.events", "high 0\n")
        try tree.write("proc/pressure/memory", "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
        #expect(tree.sources().pressure == tree.path + "proc/pressure/memory")
    }

    @Test func aHybridHostsUnifiedMount() throws {
        let tree = try FakeKernelTree(cgroup: "4:memory:/x\n0::/app\n")
        try tree.write("sys/fs/cgroup/unified/app/memory.events", "high 0\n")
        #expect(tree.sources().events == tree.path + "sys/fs/cgroup/unified/app/memory.events")
    }

    @Test func usageIsPolledOnlyWhereNothingElseExists() throws {
        let tree = try FakeKernelTree()
        try tree.write("\(service)/memory.current", "1000\n")
        let sources = tree.sources()
        #expect(sources.events == nil && sources.pressure == nil)
        #expect(sources.usage?.current == tree.path + "\(service)/memory.current")
        #expect(sources.usage?.high == tree.path + "\(service)/memory.high")
    }

    @Test func nothingToWatch() throws {
        let tree = try FakeKernelTree(cgroup: "4:memory:/x\n")
        #expect(tree.sources().isEmpty)
    }
}

@Suite(.timeLimit(.minutes(1))) struct MemoryPressureMonitorTests {
    let service = "sys/fs/cgroup/system.slice/pictor.service"

    func filledCache() -> MemoryCache<Int, Int> {
        let cache = MemoryCache<Int, Int>()
        for i in 0..<100 { cache.set(i, for: i, cost: 10) }
        return cache
    }

    func configuration(_ tree: FakeKernelTree) -> MemoryPressureMonitor.Configuration {
        .init(root: tree.path, interval: 0.01, minimumInterval: 0, moderateStall: nil, criticalStall: nil)
    }

    /// Waits (up to 20 s; never a timing assertion) until `condition` holds.
    func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<2_000 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func aRiseOfHighTrimsHalfAndOfMaxEmptiesTheCache() async throws {
        let tree = try FakeKernelTree()
        try tree.write("\(service)/memory.events", "low 0\nhigh 12\nmax 0\noom 0\noom_kill 0\n")
        let monitor = MemoryPressureMonitor(configuration: configuration(tree))
        defer { monitor.stop() }
        let cache = filledCache()
        // The baseline read here, not left to the watching thread: a thread that started after
        // the write below took `high 13` for its baseline and trimmed nothing.
        monitor.readPolledSources(now: 0)
        monitor.register(cache)
        #expect(monitor.isWatching)
        #expect(monitor.watchedFiles == [tree.path + "\(service)/memory.events"])
        // The counts already there are history: nothing is trimmed for them
        try await Task.sleep(for: .milliseconds(100))
        #expect(cache.count == 100)
        try tree.write("\(service)/memory.events", "low 0\nhigh 13\nmax 0\noom 0\noom_kill 0\n")
        #expect(try await eventually { cache.count == 50 })
        #expect(cache.statistics.evictions(.memoryPressure) == 50)
        try tree.write("\(service)/memory.events", "low 0\nhigh 13\nmax 1\noom 0\noom_kill 0\n")
        #expect(try await eventually { cache.count == 0 })
        #expect(monitor.deliveries == [.moderate: 1, .critical: 1])
    }

    @Test func usageOverHighTrimsWhereNoEventsExist() async throws {
        let tree = try FakeKernelTree()
        try tree.write("\(service)/memory.current", "500\n")
        try tree.write("\(service)/memory.high", "1000\n")
        try tree.write("\(service)/memory.max", "max\n")
        let monitor = MemoryPressureMonitor(configuration: configuration(tree))
        defer { monitor.stop() }
        let cache = filledCache()
        monitor.register(cache)
        try await Task.sleep(for: .milliseconds(100))
        #expect(cache.count == 100)
        try tree.write("\(service)/memory.current", "1000\n")
        #expect(try await eventually { cache.count < 100 })
    }

    @Test func respondersAreHeldWeaklyAndNothingStartsWithoutASource() throws {
        let tree = try FakeKernelTree(cgroup: "4:memory:/x\n")
        let monitor = MemoryPressureMonitor(configuration: configuration(tree))
        weak var released: MemoryCache<Int, Int>?
        do {
            let cache = filledCache()
            released = cache
            monitor.register(cache)
        }
        #expect(released == nil)
        #expect(!monitor.isWatching)
        monitor.handle(.stall(full: true), now: 0)
        #expect(monitor.deliveries == [.critical: 1])
    }
}
