import Testing
@testable import PictorCore

@Suite("AvailableMemory: cgroup limits")
struct AvailableMemoryTests {
    static let gib = 1 << 30

    static func read(_ files: [String: String]) -> (String) -> String? { { files[$0] } }

    @Test func cgroupV2MemoryMaxOfOwnGroup() {
        let files = ["/proc/self/cgroup": "0::/kubepods/pod1/c1\n",
                     "/sys/fs/cgroup/kubepods/pod1/c1/memory.max": "536870912\n"]
        #expect(AvailableMemory.bytes(physicalMemory: 24 * Self.gib, readFile: Self.read(files)) == 536_870_912)
    }

    @Test func ancestorLimitCapsAnUnlimitedChild() {
        let files = ["/proc/self/cgroup": "0::/a/b\n",
                     "/sys/fs/cgroup/a/b/memory.max": "max\n",
                     "/sys/fs/cgroup/a/memory.max": "2147483648\n"]
        #expect(AvailableMemory.bytes(physicalMemory: 24 * Self.gib, readFile: Self.read(files)) == 2 * Self.gib)
    }

    @Test func containerNamespaceSeesItsLimitAtTheRoot() {
        let files = ["/proc/self/cgroup": "0::/\n", "/sys/fs/cgroup/memory.max": "1073741824"]
        #expect(AvailableMemory.bytes(physicalMemory: 24 * Self.gib, readFile: Self.read(files)) == Self.gib)
    }

    @Test func noLimitMeansPhysicalMemory() {
        let files = ["/proc/self/cgroup": "0::/user.slice\n", "/sys/fs/cgroup/user.slice/memory.max": "max\n"]
        #expect(AvailableMemory.bytes(physicalMemory: 8 * Self.gib, readFile: Self.read(files)) == 8 * Self.gib)
        #expect(AvailableMemory.bytes(physicalMemory: 8 * Self.gib, readFile: Self.read([:])) == 8 * Self.gib)
    }

    @Test func limitAbovePhysicalMemoryIsCapped() {
        let files = ["/proc/self/cgroup": "0::/\n", "/sys/fs/cgroup/memory.max": "\(64 * Self.gib)"]
        #expect(AvailableMemory.bytes(physicalMemory: 8 * Self.gib, readFile: Self.read(files)) == 8 * Self.gib)
    }

    @Test func cgroupV1FallbackIgnoresItsUnlimitedValue() {
        let v1 = "4:memory:/process_api/x\n0::/\n"
        let unlimited = ["/proc/self/cgroup": v1,
                         "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n"]
        #expect(AvailableMemory.bytes(physicalMemory: 8 * Self.gib, readFile: Self.read(unlimited)) == 8 * Self.gib)
        let limited = ["/proc/self/cgroup": v1,
                       "/sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes": "268435456\n"]
        #expect(AvailableMemory.bytes(physicalMemory: 8 * Self.gib, readFile: Self.read(limited)) == 256 << 20)
    }

    @Test func garbageIsIgnored() {
        #expect(AvailableMemory.parseLimit("max") == nil)
        #expect(AvailableMemory.parseLimit("") == nil)
        #expect(AvailableMemory.parseLimit("-5") == nil)
        #expect(AvailableMemory.parseLimit("12 34") == nil)
        #expect(AvailableMemory.parseLimit(" 4096\n") == 4096)
    }

    @Test func thisMachineReportsSomething() {
        #expect(AvailableMemory.bytes > 0)
    }
}
