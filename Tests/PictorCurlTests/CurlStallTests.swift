import Foundation
@testable import PictorCurl
import PictorCore
import PictorTestSupport
import Testing

/// Stalled servers fail at the configured limit with the right error, the connection is
/// closed, and waiting costs no CPU (URLSession on Linux spins a core in the same situation).
///
/// The CPU check reads the transport's event thread's own CPU clock, the only thread that
/// runs while a caller waits: the process-wide figure would count the suites running alongside.
/// Waiting costs under 1 ms of it over a 1–5 s stall; a polling spin measured 0.27–0.33 s per
/// second here even with three of them sharing two cores, so the 0.1 s bound fails only on a
/// real spin.
@Suite(.enabled(if: CurlFixtures.hasServer), .timeLimit(.minutes(5)))
struct CurlStallTests {
    let server = CurlFixtures.server!

    /// Runs `request` on a fresh transport and returns its error, the seconds it took and the
    /// CPU seconds the event thread used meanwhile.
    func stall(_ request: TransportRequest) async throws -> (error: DataLoadingError?, seconds: Double, cpu: Double) {
        let transport = CurlFixtures.transport()
        let loop = try #require(transport.loop)
        #expect(await CurlFixtures.waitUntil { loop.eventThreadCPUTime() != nil })
        let cpuBefore = try #require(loop.eventThreadCPUTime())
        let start = Date()
        var failure: DataLoadingError?
        do {
            _ = try await transport.send(request)
            Issue.record("the stalled request succeeded")
        } catch {
            failure = error as? DataLoadingError
        }
        let seconds = Date().timeIntervalSince(start)
        let cpu = try #require(loop.eventThreadCPUTime()) - cpuBefore
        #expect(await CurlFixtures.isDrained(transport))
        return (failure, seconds, cpu)
    }

    @Test func aServerThatNeverAnswersFailsAtTheIdleTimeout() async throws {
        let key = CurlFixtures.key()
        let result = try await stall(CurlFixtures.request(server.url("/no-headers?key=\(key)"), idleTimeout: 1, timeout: 30))
        #expect(result.error == .idleTimeout(seconds: 1))
        #expect(result.seconds >= 1, "failed early, after \(result.seconds) s")
        #expect(result.cpu < 0.1, "event thread used \(result.cpu) s of CPU")
        let written = try server.bytesWritten(key: key)
        #expect(written.finished && written.hungUp)
    }

    /// The head and the first KiB must arrive before the idle timeout for the last progress to
    /// count them: 5 s is more than a loaded machine's server ever takes to send them.
    @Test func headersThenSilenceFailsAtTheIdleTimeout() async throws {
        let key = CurlFixtures.key()
        let progress = ProgressLog()
        let result = try await stall(CurlFixtures.request(server.url("/stall?key=\(key)"), idleTimeout: 5, timeout: 30, progress: progress))
        #expect(result.error == .idleTimeout(seconds: 5))
        #expect(result.seconds >= 5, "failed early, after \(result.seconds) s")
        #expect(result.cpu < 0.1, "event thread used \(result.cpu) s of CPU")
        #expect(progress.recorded.last == TransferProgress(completed: 1024, total: 1024 * 1024))
        let written = try server.bytesWritten(key: key)
        #expect(written.finished && written.hungUp)
    }

    /// One byte a second is never idle for 30 s; the overall timeout ends it, reported with the
    /// caller's overall budget.
    @Test func aOneBytePerSecondDripFailsAtTheOverallTimeout() async throws {
        let key = CurlFixtures.key()
        let result = try await stall(CurlFixtures.request(
            server.url("/slow?key=\(key)&bps=1"), idleTimeout: 30, timeout: 2, reportedTimeout: 45))
        #expect(result.error == .timedOut(seconds: 45))
        #expect(result.seconds >= 2, "failed early, after \(result.seconds) s")
        #expect(result.cpu < 0.1, "event thread used \(result.cpu) s of CPU")
        let written = try server.bytesWritten(key: key)
        #expect(written.finished && written.hungUp)
    }

    /// Fourteen chunks 0.5 s apart under a 6 s idle timeout: at least 6.5 s in all (so an idle
    /// clock that bytes do not restart fails it), and 5.5 s of slack for each gap. (With 1.5 s of
    /// idle timeout and 0.4 s gaps, a loaded CI machine once held the server's next chunk that long.)
    @Test func everyByteRestartsTheIdleClock() async throws {
        let transport = CurlFixtures.transport()
        let result = try await transport.send(CurlFixtures.request(
            server.url("/drip?chunks=14&ms=500&size=6000&k=\(CurlFixtures.key())"), idleTimeout: 6, timeout: 60))
        #expect(result.body.count == 6000)
    }
}
