import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import PictorTestSupport
import Testing

/// Scheduling of ``DataLoader`` against the fault server: one priority queue, followed while
/// waiting. (Sharing one load between callers is the pipeline's fetch stage; see
/// `ImagePipelineCoalescingTests`.)
@Suite(.enabled(if: LoadingFixtures.hasFaultServer), .timeLimit(.minutes(5)))
struct DataLoaderSchedulingTests {
    let server = LoadingFixtures.faultServer!

    /// Waits (yielding) until `condition` holds.
    func waitUntil(_ condition: () -> Bool) async {
        while !condition() { try? await Task.sleep(nanoseconds: 1_000_000) }
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
                    options: DataLoadOptions(handle: handle, progress: nil))
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
}
