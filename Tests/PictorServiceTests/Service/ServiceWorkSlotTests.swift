import Dispatch
import Foundation
import PictorCore
import PictorTestSupport
import Synchronization
import Testing
@testable import PictorService

/// The slots ``ImageService/Configuration/maxWorkInFlight`` bounds are held until the work
/// itself ends, not until its requests leave: an encode cannot be stopped half-way, so work a
/// client left still costs its CPU and memory.
@Suite(.timeLimit(.minutes(5)))
struct ServiceWorkSlotTests {
    @Test func aLeftRequestsSlotStaysTakenUntilItsWorkEnds() async {
        let encoder = GatedEncoder()
        let h = ServiceHarness({ $0.maxWorkInFlight = 1 }, pipeline: { $0.encoder = encoder })
        h.stubSource()
        let leaving = Task { await h.image("rs:fit:64:64") }
        await until { encoder.entered == 1 }
        leaving.cancel()
        #expect(await leaving.value.status == 503)
        // The encode still runs: no other result may start, and the same one is not started a
        // second time beside it.
        #expect(await h.image("rs:fit:32:32").status == 429)
        #expect(await h.image("rs:fit:64:64").status == 429)
        #expect(h.service.workSlots.taken == 1)
        encoder.open()
        await until { h.service.workSlots.taken == 0 }
        #expect(await h.image("rs:fit:32:32").status == 200)
        #expect(encoder.entered == 2)
    }

    @Test func aJoinerStillSharesTheWorkItsFirstRequestLeft() async {
        let encoder = GatedEncoder()
        let h = ServiceHarness({ $0.maxWorkInFlight = 1 }, pipeline: { $0.encoder = encoder })
        h.stubSource()
        let first = Task { await h.image("rs:fit:64:64") }
        await until { encoder.entered == 1 }
        let joiner = Task { await h.image("rs:fit:64:64") }
        await until { h.waitingRequests == 2 }
        first.cancel()
        #expect(await first.value.status == 503)
        #expect(await h.image("rs:fit:32:32").status == 429)
        encoder.open()
        #expect(await joiner.value.status == 200)
        #expect(encoder.entered == 1)
        #expect(h.service.metrics.coalescedRequests == 1)
        await until { h.service.workSlots.taken == 0 }
        #expect(await h.image("rs:fit:32:32").status == 200)
    }

    @Test func workThatEndsGivesItsSlotBack() async {
        let h = ServiceHarness { $0.maxWorkInFlight = 1 }
        h.stubSource()
        #expect(await h.image("rs:fit:64:64").status == 200)
        await until { h.service.workSlots.taken == 0 }
        #expect(await h.image("rs:fit:32:32").status == 200)
        await until { h.service.workSlots.taken == 0 }
    }
}

/// The test encoder, whose encodes wait (on the processing queue's thread, never on the
/// cooperative pool) until ``open()``.
private final class GatedEncoder: ImageEncoding, Sendable {
    private let state = Mutex((entered: 0, open: false))
    private let condition = NSCondition()

    /// Encodes begun so far.
    var entered: Int { state.withLock { $0.entered } }

    /// Lets every waiting and later encode run.
    func open() {
        condition.lock()
        state.withLock { $0.open = true }
        condition.broadcast()
        condition.unlock()
    }

    func encode(_ image: Image, as format: ImageFormat, quality: Int) throws -> Data {
        state.withLock { $0.entered += 1 }
        condition.lock()
        while !state.withLock({ $0.open }) { condition.wait() }
        condition.unlock()
        return TestImageCodec.encode(image)
    }
}
