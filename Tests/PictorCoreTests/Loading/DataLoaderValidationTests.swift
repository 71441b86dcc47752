import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorCore
import PictorTestSupport
import Testing

/// Status, content and limit checks of ``DataLoader`` against the fault server.
@Suite(.enabled(if: LoadingFixtures.hasFaultServer), .timeLimit(.minutes(5)))
struct DataLoaderValidationTests {
    let server = LoadingFixtures.faultServer!
    let loader = LoadingFixtures.loader()

    @Test(arguments: ["/image", "/octet", "/image?type=none", "/image?type=image/jpg", "/image?type=text/plain"])
    func imageBytesLoadWhateverTheContentType(path: String) async throws {
        let (data, response) = try await loader.data(for: URLRequest(url: server.url(path)))
        #expect(ImageFormat.sniff(data) == .png)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test func htmlWithStatus200IsNotAnImage() async throws {
        let error = await #expect(throws: DataLoadingError.self) {
            _ = try await loader.data(for: URLRequest(url: server.url("/html")))
        }
        guard let error, error.kind == .notAnImage, let signature = error.signature else { Issue.record("\(String(describing: error))"); return }
        let type = error.contentType
        #expect(type == "text/html; charset=utf-8" && signature.guess == "HTML")
    }

    @Test func notFoundWithAnImageBodyIsAnErrorAndNotRetried() async throws {
        let path = "/status?code=404&k=\(LoadingFixtures.key())"
        await #expect(throws: DataLoadingError.statusCode(404)) {
            _ = try await loader.data(for: URLRequest(url: server.url(path)))
        }
        #expect(try server.requestCount(prefix: path) == 1)
    }

    @Test func partialContentIsAnErrorEvenWithAnImageBody() async throws {
        // A newcomer saw a 206 with half a JPEG cached as a whole image by `prefetch --data-only`.
        let path = "/status?code=206&k=\(LoadingFixtures.key())"
        await #expect(throws: DataLoadingError.statusCode(206)) {
            _ = try await loader.data(for: URLRequest(url: server.url(path)))
        }
    }

    @Test func emptyBodyIsAnError() async throws {
        await #expect(throws: DataLoadingError.emptyBody) {
            _ = try await loader.data(for: URLRequest(url: server.url("/empty")))
        }
    }

    @Test func bodyCutShortOfContentLengthIsTruncatedAndRetried() async throws {
        let path = "/truncated?send=40&pad=1000&k=\(LoadingFixtures.key())"
        await #expect {
            _ = try await loader.data(for: URLRequest(url: server.url(path)))
        } throws: { error in
            error as? DataLoadingError == .truncated(received: 40, expected: 1098)
        }
        #expect(try server.requestCount(prefix: path) == 3)
    }

    @Test func connectionResetIsATransportErrorAndRetried() async throws {
        let path = "/reset?k=\(LoadingFixtures.key())"
        await #expect {
            _ = try await loader.data(for: URLRequest(url: server.url(path)))
        } throws: { error in
            (error as? DataLoadingError)?.transportCode != nil
        }
        #expect(try server.requestCount(prefix: path) == 3)
    }

    @Test func hugeContentLengthFailsUpFrontWithoutRetry() async throws {
        let path = "/huge?k=\(LoadingFixtures.key())"
        let loader = LoadingFixtures.loader { $0.maximumResponseSize = 1024 * 1024 }
        await #expect(throws: DataLoadingError.responseTooLarge(limit: 1024 * 1024)) {
            _ = try await loader.data(for: URLRequest(url: server.url(path)))
        }
        #expect(try server.requestCount(prefix: path) == 1)
    }

    @Test func bodyLargerThanTheLimitWhileStreamingFails() async throws {
        let loader = LoadingFixtures.loader { $0.maximumResponseSize = 10_000 }
        await #expect(throws: DataLoadingError.responseTooLarge(limit: 10_000)) {
            _ = try await loader.data(for: URLRequest(url: server.url("/image?pad=50000")))
        }
    }

    @Test func overallTimeoutIsEnforcedByPictor() async throws {
        let loader = LoadingFixtures.loader {
            $0.timeout = 0.3
            $0.retryPolicy.maximumRetries = 0
        }
        await #expect(throws: DataLoadingError.timedOut(seconds: 0.3)) {
            _ = try await loader.data(for: URLRequest(url: server.url("/delay?ms=5000&k=\(LoadingFixtures.key())")))
        }
    }

    @Test func slowDripStreamsProgress() async throws {
        let progress = ProgressRecorder()
        let (data, _) = try await loader.data(for: URLRequest(url: server.url("/drip?chunks=4&ms=50&size=200000"))) { p in
            progress.record(Data(), p)
        }
        #expect(data.count == 200_000)
        let values = progress.recorded
        #expect(values.count >= 3)
        #expect(values.last == TransferProgress(completed: 200_000, total: 200_000))
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.completed <= $1.completed })
    }

    @Test func unsupportedSchemeFails() async throws {
        await #expect(throws: DataLoadingError.unsupportedURL) {
            _ = try await loader.data(for: URLRequest(url: URL(string: "ftp://127.0.0.1/a.png")!))
        }
    }

    @Test func fileURLsAreValidatedToo() async throws {
        let png = LoadingFixtures.corpus.appendingPathComponent("pngsuite/basn2c08.png")
        let (data, _) = try await loader.data(for: URLRequest(url: png))
        #expect(data == (try Data(contentsOf: png)))
        let text = LoadingFixtures.corpus.appendingPathComponent("MANIFEST.tsv")
        let error = await #expect(throws: DataLoadingError.self) {
            _ = try await loader.data(for: URLRequest(url: text))
        }
        guard let error, let scheme = error.scheme, let signature = error.signature else { Issue.record("\(String(describing: error))"); return }
        #expect(scheme == "file" && signature.guess == "text")
    }

    @Test func anExplicitAcceptHeaderIsKept() async throws {
        let path = "/image?k=\(LoadingFixtures.key())"
        var request = URLRequest(url: server.url(path))
        request.setValue("image/webp", forHTTPHeaderField: "Accept")
        _ = try await loader.data(for: request)
        #expect(try server.requests(prefix: path).first?.headers["accept"] == "image/webp")
    }
}
