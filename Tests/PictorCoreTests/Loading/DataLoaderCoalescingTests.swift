import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorCore
import PictorTestSupport
import Testing

/// Coalescing and scheduling of ``DataLoader`` against the fault server.
@Suite(.enabled(if: LoadingFixtures.hasFaultServer), .timeLimit(.minutes(1)))
struct DataLoaderCoalescingTests {
    let server = LoadingFixtures.faultServer!

    /// Waits (yielding) until `condition` holds.
    func waitUntil(_ condition: () -> Bool) async {
        while !condition() { try? await Task.sleep(nanoseconds: 1_000_000) }
    }

    @Test func hundredConcurrentLoadsOfOneURLMakeOneRequest() async throws {
        // Given 100 callers of one slow URL
        let loader = LoadingFixtures.loader()
        let key = LoadingFixtures.key()
        let path = "/hold?key=\(key)"
        let url = server.url(path)
        let server = self.server
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask { try await loader.data(for: URLRequest(url: url)).0.count }
            }
            await waitUntil { loader.callerCount == 100 }
            try server.release(key: key)
            var sizes: [Int] = []
            for try await size in group { sizes.append(size) }
            return sizes
        }
        // Then every caller got the bytes from one request
        #expect(results.count == 100)
        #expect(Set(results).count == 1)
        #expect(try server.requestCount(prefix: path) == 1)
    }

    @Test func cancellingNinetyNineCallersLeavesTheLastOneRunning() async throws {
        // Given 100 callers joined on one transfer that is held by the server
        let loader = LoadingFixtures.loader()
        let key = LoadingFixtures.key()
        let path = "/hold?key=\(key)"
        let url = server.url(path)
        let tasks = (0..<100).map { _ in Task { try await loader.data(for: URLRequest(url: url)).0 } }
        await waitUntil { loader.callerCount == 100 }

        // When 99 of them cancel
        for task in tasks.dropLast() { task.cancel() }
        var cancelled = 0
        for task in tasks.dropLast() {
            do { _ = try await task.value } catch is CancellationError { cancelled += 1 }
        }

        // Then they fail with CancellationError and the last still completes
        try server.release(key: key)
        let data = try await tasks.last!.value
        #expect(cancelled == 99)
        #expect(ImageFormat.sniff(data) == .png)
        #expect(try server.requestCount(prefix: path) == 1)
    }

    @Test func eachCallerGetsItsOwnProgress() async throws {
        let loader = LoadingFixtures.loader()
        let url = server.url("/drip?chunks=3&ms=100&size=30000&k=\(LoadingFixtures.key())")
        let a = ProgressRecorder(), b = ProgressRecorder()
        async let first = loader.loadData(for: URLRequest(url: url), didReceiveChunk: a.record)
        async let second = loader.loadData(for: URLRequest(url: url), didReceiveChunk: b.record)
        _ = try await (first, second)
        #expect(a.data.count == 30_000)
        #expect(b.data.count == 30_000)
        #expect(a.recorded.last == TransferProgress(completed: 30_000, total: 30_000))
        #expect(b.recorded.last == TransferProgress(completed: 30_000, total: 30_000))
    }

    @Test func differentHeadersAreNotCoalesced() async throws {
        let loader = LoadingFixtures.loader()
        let path = "/delay?ms=200&k=\(LoadingFixtures.key())"
        var a = URLRequest(url: server.url(path)), b = URLRequest(url: server.url(path))
        a.setValue("Bearer 1", forHTTPHeaderField: "Authorization")
        b.setValue("Bearer 2", forHTTPHeaderField: "Authorization")
        async let first = loader.data(for: a)
        async let second = loader.data(for: b)
        _ = try await (first, second)
        #expect(try server.requestCount(prefix: path) == 2)
    }

    @Test func cancellingTheOnlyCallerCancelsTheTransfer() async throws {
        let loader = LoadingFixtures.loader()
        let key = LoadingFixtures.key()
        defer { try? server.release(key: key) }
        let task = Task { try await loader.data(for: URLRequest(url: server.url("/hold?key=\(key)"))) }
        await waitUntil { loader.runningCount == 1 }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        await waitUntil { loader.runningCount == 0 }
        #expect(loader.callerCount == 0)
    }

    @Test func queuedRequestsRunHighestPriorityFirstAndPrioritiesChangeWhileQueued() async throws {
        // Given one slot, held by a slow request
        let loader = LoadingFixtures.loader { $0.maximumConcurrentRequests = 1 }
        let key = LoadingFixtures.key()
        let blocker = Task { try await loader.data(for: URLRequest(url: server.url("/hold?key=\(key)"))) }
        await waitUntil { loader.runningCount == 1 }

        // When low, normal and veryLow requests queue, and the veryLow one is raised to veryHigh
        func load(_ name: String, _ handle: PriorityHandle) -> Task<Void, any Error> {
            Task {
                _ = try await loader.loadData(
                    for: URLRequest(url: server.url("/image?k=\(key)&n=\(name)")),
                    options: DataLoadOptions(priority: handle)) { _, _ in }
            }
        }
        let low = load("low", PriorityHandle(.low))
        await waitUntil { loader.waitingCount == 1 }
        let normal = load("normal", PriorityHandle(.normal))
        await waitUntil { loader.waitingCount == 2 }
        let raisedHandle = PriorityHandle(.veryLow)
        let raised = load("raised", raisedHandle)
        await waitUntil { loader.waitingCount == 3 }
        raisedHandle.update(.veryHigh)
        try server.release(key: key)
        _ = try await (blocker.value, low.value, normal.value, raised.value)

        // Then they ran raised, normal, low
        let order = try server.requests(prefix: "/image?k=\(key)").map { $0.target.components(separatedBy: "n=").last ?? "" }
        #expect(order == ["raised", "normal", "low"])
    }

    @Test func cancellingAQueuedRequestFreesItsPlace() async throws {
        let loader = LoadingFixtures.loader { $0.maximumConcurrentRequests = 1 }
        let key = LoadingFixtures.key()
        let blocker = Task { try await loader.data(for: URLRequest(url: server.url("/hold?key=\(key)"))) }
        await waitUntil { loader.runningCount == 1 }
        let queued = Task { try await loader.data(for: URLRequest(url: server.url("/image?k=\(key)"))) }
        await waitUntil { loader.waitingCount == 1 }
        queued.cancel()
        await #expect(throws: CancellationError.self) { _ = try await queued.value }
        #expect(loader.waitingCount == 0)
        try server.release(key: key)
        _ = try await blocker.value
        #expect(try server.requestCount(prefix: "/image?k=\(key)") == 0)
    }

    @Test func aHighPriorityJoinerRaisesTheSharedTransfer() async throws {
        // Given one slot held, a veryLow transfer and a normal one queued
        let loader = LoadingFixtures.loader { $0.maximumConcurrentRequests = 1 }
        let key = LoadingFixtures.key()
        let blocker = Task { try await loader.data(for: URLRequest(url: server.url("/hold?key=\(key)"))) }
        await waitUntil { loader.runningCount == 1 }
        func load(_ name: String, _ priority: RequestPriority) -> Task<Void, any Error> {
            Task {
                _ = try await loader.loadData(
                    for: URLRequest(url: server.url("/image?k=\(key)&n=\(name)")),
                    options: DataLoadOptions(priority: PriorityHandle(priority))) { _, _ in }
            }
        }
        let shared = load("shared", .veryLow)
        await waitUntil { loader.waitingCount == 1 }
        let normal = load("normal", .normal)
        await waitUntil { loader.waitingCount == 2 }
        // When a veryHigh caller joins the veryLow transfer
        let joiner = load("shared", .veryHigh)
        await waitUntil { loader.callerCount == 4 }
        try server.release(key: key)
        _ = try await (blocker.value, shared.value, normal.value, joiner.value)
        // Then the shared transfer ran first, once
        let order = try server.requests(prefix: "/image?k=\(key)").map { $0.target.components(separatedBy: "n=").last ?? "" }
        #expect(order == ["shared", "normal"])
    }
}
