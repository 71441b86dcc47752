import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorCore
@testable import PictorCurl
import PictorTestSupport
import Testing

/// ``DataLoader`` over ``CurlTransport`` against the fault server: what the transport reports
/// is judged once, in the loader, and a failed transfer never holds a slot.
@Suite(.enabled(if: CurlFixtures.server != nil), .timeLimit(.minutes(5)))
struct DataLoaderOverCurlTests {
    let server = CurlFixtures.server!

    func loader(_ configure: (inout DataLoader.Configuration) -> Void = { _ in }) -> DataLoader {
        var configuration = DataLoader.Configuration()
        configuration.sleep = { _ in }
        configure(&configuration)
        return DataLoader(transport: CurlFixtures.transport(), configuration: configuration)
    }

    @Test(arguments: ["gzip", "deflate", "br"], ["png", "svg"])
    func compressedImagesLoadAndAreNotMistakenForTruncated(encoding: String, type: String) async throws {
        try #require(encoding != "br" || CurlFixtures.serverSupportsBrotli, "python3-brotli missing")
        let (data, response) = try await loader().data(for: URLRequest(url: server.url("/encoded?enc=\(encoding)&type=\(type)&k=\(CurlFixtures.key())")))
        #expect(ImageFormat.sniff(data) == (type == "png" ? .png : .svg))
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding") == encoding)
    }

    @Test func anOversizedBodyFailsAloneAndFreesItsSlotAtOnce() async throws {
        // One slot: the oversized, endless body must give it back for the images behind it.
        let loader = loader {
            $0.maximumConcurrentRequests = 1
            $0.maximumResponseSize = 1024 * 1024
        }
        let key = CurlFixtures.key()
        let urls = [server.url("/big?key=\(key)&chunked=1&stall=1")] + (0..<3).map { server.url("/image?k=\(key)&n=\($0)") }
        let results = await withTaskGroup(of: (Int, Result<Int, any Error>).self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask {
                    do { return (index, .success(try await loader.data(for: URLRequest(url: url)).0.count)) } catch { return (index, .failure(error)) }
                }
            }
            var results = [Result<Int, any Error>?](repeating: nil, count: urls.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0! }
        }
        guard case .failure(let error) = results[0] else { Issue.record("the oversized body loaded"); return }
        #expect(error as? DataLoadingError == .responseTooLarge(limit: 1024 * 1024))
        #expect(results.dropFirst().allSatisfy { if case .success = $0 { true } else { false } })
        let written = try server.bytesWritten(key: key)
        #expect(written.hungUp)
        #expect(loader.runningCount == 0 && loader.waitingCount == 0)
    }

    @Test func theOverallDeadlineCoversRetriesOnAStalledServer() async throws {
        let key = CurlFixtures.key()
        let loader = loader { $0.timeout = 1.5 }
        await #expect(throws: DataLoadingError.timedOut(seconds: 1.5)) {
            _ = try await loader.data(for: URLRequest(url: server.url("/stall?key=\(key)")))
        }
        // Waits for the stall's handler to end first: on a loaded machine the server may read
        // the request only after the deadline, and count it only then.
        #expect(try server.bytesWritten(key: key).hungUp)
        #expect(try server.requestCount(prefix: "/stall?key=\(key)") == 1, "not retried past the deadline")
    }

    @Test func aBodyThatDoesNotDecodeIsNotRetried() async throws {
        let key = CurlFixtures.key()
        let loader = loader()
        await #expect(throws: DataLoadingError.self) {
            _ = try await loader.data(for: URLRequest(url: server.url("/raw?kind=badgzip&k=\(key)")))
        }
        #expect(try server.requestCount(prefix: "/raw?kind=badgzip&k=\(key)") == 1)
    }

    @Test func aLostConnectionInTheHeadIsRetried() async throws {
        let key = CurlFixtures.key()
        let loader = loader()
        await #expect(throws: DataLoadingError.self) {
            _ = try await loader.data(for: URLRequest(url: server.url("/raw?kind=midhead&k=\(key)")))
        }
        #expect(try server.requestCount(prefix: "/raw?kind=midhead&k=\(key)") == 3)
    }
}
