import Foundation
@testable import PictorCurl
import PictorCore
import PictorTestSupport
import Testing

/// The body-size cap stops the transfer itself (the server sees the hang-up), not only the
/// result, and bounds the memory an oversized body can take.
@Suite(.enabled(if: CurlFixtures.hasServer), .timeLimit(.minutes(5)))
struct CurlSizeLimitTests {
    let server = CurlFixtures.server!
    static let mebibyte: Int64 = 1024 * 1024

    /// The server would send 1 GiB under a declared 600 MiB; the transport refuses the head.
    @Test func aContentLengthOverTheCapFailsBeforeTheBody() async throws {
        let transport = CurlFixtures.transport()
        let key = CurlFixtures.key()
        let progress = ProgressLog()
        await #expect(throws: DataLoadingError.responseTooLarge(limit: Self.mebibyte)) {
            _ = try await transport.send(CurlFixtures.request(
                server.url("/big?key=\(key)&declare=629145600"), maximumBodySize: Self.mebibyte, progress: progress))
        }
        // No body byte was taken (not even reported), and the connection was closed at once:
        // the server wrote no more than socket buffers hold.
        #expect(progress.recorded.allSatisfy { $0.completed == 0 })
        let written = try server.bytesWritten(key: key)
        #expect(written.finished && written.hungUp)
        #expect(written.written < 32 * Self.mebibyte)
        #expect(await CurlFixtures.isDrained(transport))
    }

    /// Chunked, no length, 1 GiB on offer: the write callback stops at the cap.
    @Test func aChunkedBodyPastTheCapStopsAtOnce() async throws {
        let transport = CurlFixtures.transport()
        let key = CurlFixtures.key()
        await #expect(throws: DataLoadingError.responseTooLarge(limit: Self.mebibyte)) {
            _ = try await transport.send(CurlFixtures.request(
                server.url("/big?key=\(key)&chunked=1"), maximumBodySize: Self.mebibyte))
        }
        let written = try server.bytesWritten(key: key)
        #expect(written.finished && written.hungUp)
        #expect(written.written < 64 * Self.mebibyte)
        #expect(await CurlFixtures.isDrained(transport))
    }

    /// 64 MiB of zeros gzipped to about 64 KiB: the Content-Length is far under the cap, the
    /// decoded body is not, and decoding stops at the cap.
    @Test func aDecompressionBombStopsAtTheCap() async throws {
        let transport = CurlFixtures.transport()
        let statistics = try #require(transport.loop?.statistics)
        await #expect(throws: DataLoadingError.responseTooLarge(limit: Self.mebibyte)) {
            _ = try await transport.send(CurlFixtures.request(
                server.url("/encoded?enc=gzip&type=zeros&size=67108864&k=\(CurlFixtures.key())"), maximumBodySize: Self.mebibyte))
        }
        #expect(statistics.peakBufferedBytes.load(ordering: .relaxed) <= Int(Self.mebibyte))
        #expect(await CurlFixtures.isDrained(transport))
    }

    @Test func aBodyExactlyAtTheCapPasses() async throws {
        let transport = CurlFixtures.transport()
        for chunked in ["", "&chunked=1"] {
            let result = try await transport.send(CurlFixtures.request(
                server.url("/big?key=\(CurlFixtures.key())&send=\(Self.mebibyte)\(chunked)"), maximumBodySize: Self.mebibyte))
            #expect(result.body.count == Int(Self.mebibyte))
        }
    }

    /// Eight oversized bodies at once under a 5 MB cap: the transport's buffers never hold more
    /// than 8 × the cap, and the process's peak resident size grows by far less than the bodies
    /// (8 × 1 GiB) would take. The RSS bound is generous: other suites run at the same time.
    /// It is not checked under a sanitizer (see `CurlFixtures.resetPeakResidentBytes()`).
    @Test func concurrentOversizedBodiesStayWithinTheirCaps() async throws {
        let transport = CurlFixtures.transport { $0.maximumConnectionsPerHost = 8 }
        let cap: Int64 = 5_000_000
        let keys = (0..<8).map { _ in CurlFixtures.key() }
        let server = self.server
        let baseline = CurlFixtures.resetPeakResidentBytes() ? CurlFixtures.peakResidentBytes() : nil
        let failures = await withTaskGroup(of: (any Error)?.self) { group in
            for key in keys {
                group.addTask {
                    do {
                        _ = try await transport.send(CurlFixtures.request(server.url("/big?key=\(key)&chunked=1"), maximumBodySize: cap))
                        return nil
                    } catch { return error }
                }
            }
            var failures: [DataLoadingError?] = []
            for await error in group { failures.append(error as? DataLoadingError) }
            return failures
        }
        #expect(failures == Array(repeating: .responseTooLarge(limit: cap), count: 8))
        let statistics = try #require(transport.loop?.statistics)
        #expect(statistics.peakBufferedBytes.load(ordering: .relaxed) <= 8 * Int(cap))
        if let baseline, let peak = CurlFixtures.peakResidentBytes() {
            #expect(peak - baseline < 8 * Int(cap) + 128 * 1024 * 1024)
        }
        for key in keys {
            let written = try server.bytesWritten(key: key)
            #expect(written.finished && written.hungUp)
        }
        #expect(await CurlFixtures.isDrained(transport))
    }
}
