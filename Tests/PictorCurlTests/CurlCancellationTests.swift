import Foundation
@testable import PictorCurl
import PictorCore
import PictorTestSupport
import Testing

/// Cancelling the calling task resumes it at once and closes the connection.
@Suite(.enabled(if: CurlFixtures.hasServer), .timeLimit(.minutes(5)))
struct CurlCancellationTests {
    let server = CurlFixtures.server!

    @Test func cancellingAStalledTransferThrowsAtOnceAndHangsUp() async throws {
        let transport = CurlFixtures.transport()
        let key = CurlFixtures.key()
        let progress = ProgressLog()
        let request = CurlFixtures.request(server.url("/stall?key=\(key)"), progress: progress)
        let task = Task { try await transport.send(request) }
        // The head and the first KiB arrived: the transfer is running and stalled.
        #expect(await CurlFixtures.waitUntil { progress.recorded.last?.completed == 1024 })

        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        let written = try server.bytesWritten(key: key)
        #expect(written.finished && written.hungUp)
        #expect(await CurlFixtures.isDrained(transport))
        // Nothing more was reported after the cancellation.
        #expect(progress.recorded.last?.completed == 1024)
    }

    @Test func cancellingWhileWaitingForTheHeadThrowsAtOnce() async throws {
        let transport = CurlFixtures.transport()
        let key = CurlFixtures.key()
        let server = self.server
        let task = Task { try await transport.send(CurlFixtures.request(server.url("/hold?key=\(key)"))) }
        #expect(try await CurlFixtures.waitUntil { try server.requestCount(prefix: "/hold?key=\(key)") == 1 })
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(await CurlFixtures.isDrained(transport))
        try server.release(key: key)
    }

    @Test func aTaskCancelledBeforeSendNeverTouchesTheNetwork() async throws {
        let transport = CurlFixtures.transport()
        let path = "/image?k=\(CurlFixtures.key())"
        let server = self.server
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(CurlFixtures.request(server.url(path)))
        }
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(try server.requestCount(prefix: path) == 0)
    }

    /// Many transfers cancelled at every stage, mixed with completed ones: all callers are
    /// resumed, and no easy handle or buffer is left behind.
    @Test func cancellationsAtRandomMomentsLeaveNothingBehind() async throws {
        let transport = CurlFixtures.transport()
        let key = CurlFixtures.key()
        let server = self.server
        var random = SplitMix64(seed: 42)
        let tasks = (0..<60).map { index in
            let path = index % 3 == 0 ? "/drip?chunks=5&ms=20&size=200000" : "/delay?ms=\(index % 7 * 10)"
            return Task { try await transport.send(CurlFixtures.request(server.url("\(path)&k=\(key)&i=\(index)"))) }
        }
        for task in tasks where random.next() % 2 == 0 {
            try await Task.sleep(nanoseconds: random.next() % 20_000_000)
            task.cancel()
        }
        var completed = 0, cancelled = 0
        for task in tasks {
            do {
                let result = try await task.value
                #expect(result.response.statusCode == 200)
                completed += 1
            } catch is CancellationError {
                cancelled += 1
            }
        }
        #expect(completed + cancelled == 60)
        #expect(await CurlFixtures.isDrained(transport))
    }
}
