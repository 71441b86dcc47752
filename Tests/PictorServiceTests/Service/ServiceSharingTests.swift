import Foundation
import PictorCore
import PictorTestSupport
import Testing
@testable import PictorService

/// Requests for one result being made: admission, cancellation, deadlines, and the failures of
/// the encode.
@Suite(.timeLimit(.minutes(5)))
struct ServiceSharingTests {
    @Test func aRequestJoiningAResultBeingMadeIsNotRefusedAtTheLimit() async {
        let h = ServiceHarness { $0.maxWorkInFlight = 1 }
        h.stubSource()
        h.loader.gate.close()
        let first = Task { await h.image("rs:fit:64:64") }
        let second = Task { await h.image("rs:fit:64:64") }
        await until { h.waitingRequests == 2 }
        let other = await h.image("rs:fit:32:32")
        #expect(other.status == 429)
        h.loader.gate.open()
        #expect(await first.value.status == 200)
        #expect(await second.value.status == 200)
        #expect(h.service.metrics.coalescedRequests == 1)
        #expect(h.service.metrics.encodes == 1)
        #expect(h.service.metrics.refusalsByKind == [.overloaded: 1])
        // Nothing is being made any more: the limit admits a new result.
        #expect(await h.image("rs:fit:32:32").status == 200)
    }

    @Test func aCancelledRequestIs503AndTheOthersStillGetTheResult() async {
        let h = ServiceHarness()
        h.stubSource()
        h.loader.gate.close()
        let leaving = Task { await h.image("rs:fit:64:64") }
        let staying = Task { await h.image("rs:fit:64:64") }
        await until { h.waitingRequests == 2 }
        leaving.cancel()
        let cancelled = await leaving.value
        #expect(cancelled.status == 503)
        #expect(cancelled.text == "the request was cancelled\n")
        h.loader.gate.open()
        #expect(await staying.value.status == 200)
        #expect(h.loader.loadCount == 1)
        #expect(h.encoder.encodeCount == 1)
        #expect(h.service.metrics.encodes == 1)
        // Its caller left, so nobody was answered 503: the cancellation is counted by its
        // kind, and the statuses count only the answer that was read.
        #expect(h.service.metrics.responsesByStatus == [200: 1])
        #expect(h.service.metrics.requests == 1)
        #expect(h.service.metrics.refusalsByKind == [.cancelled: 1])
    }

    @Test func whenEveryRequestForAResultLeavesItsWorkStops() async {
        let h = ServiceHarness()
        h.stubSource()
        h.loader.gate.close()
        let leaving = Task { await h.image("rs:fit:64:64") }
        await h.loader.gate.waitUntil(waiting: 1)
        leaving.cancel()
        #expect(await leaving.value.status == 503)
        // The download was cancelled with its last caller.
        await until { h.loader.gate.waitingCount == 0 }
        h.loader.gate.open()
        #expect(h.encoder.encodeCount == 0)

        let later = await h.image("rs:fit:64:64")
        #expect(later.status == 200)
        #expect(h.loader.loadCount == 2)
        #expect(h.service.metrics.coalescedRequests == 0)
    }

    @Test func aRequestPastItsDeadlineLeavesAndItsWorkStops() async {
        let h = ServiceHarness { $0.requestTimeout = 0.05 }
        h.stubSource()
        h.loader.gate.close()
        let response = await h.image("rs:fit:64:64")
        #expect(response.status == 504)
        #expect(response.text == "the image took longer than 0.05 s\n")
        await until { h.loader.gate.waitingCount == 0 }
        h.loader.gate.open()
        #expect(h.encoder.encodeCount == 0)
    }

    @Test func encodingFailuresHaveTheirStatuses() async {
        let failing = ServiceHarness()
        failing.stubSource()
        failing.encoder.setFailing(true)
        let failed = await failing.image("rs:fit:64:64/f:webp")
        #expect(failed.status == 422)
        #expect(failed.text == "encoding the result as webp failed\n")

        let none = ServiceHarness(pipeline: { $0.encoder = nil })
        none.stubSource()
        let unavailable = await none.image("rs:fit:64:64")
        #expect(unavailable.status == 503)
        #expect(unavailable.text == "no image encoder is configured\n")
    }

    @Test func limitRefusalsSayWhatWasOver() async {
        let bytes = ServiceHarness { $0.maxSourceBytes = 4 }
        bytes.stubSource()
        #expect(await bytes.image("rs:fit:64:64").text == "the source is larger than 4 bytes\n")

        let result = ServiceHarness { $0.maxResultDimension = 100 }
        result.stubSource()
        let large = await result.image("q:80")
        #expect(large.status == 422)
        #expect(large.text == "the result would be 640x480, over the limit of 100 pixels a side\n")
        #expect(result.encoder.encodeCount == 0)
    }
}
