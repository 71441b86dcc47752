import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PictorTestSupport
import Testing

/// Smoke tests of the test servers themselves (nginx and the Python fault server).
@Suite(.timeLimit(.minutes(5)))
struct TestServersTests {
    @Test(.enabled(if: NginxServer.isAvailable))
    func nginxServesAFolderAndLogsRequests() async throws {
        // Given a folder with one file
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-root-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]).write(to: root.appendingPathComponent("a.png"))
        let server = try NginxServer.start(root: root)
        defer { server.stop() }

        // When it is fetched twice, the second time conditionally
        let (data, response) = try await URLSession(configuration: .ephemeral).data(from: server.url("/a.png"))
        let http = try #require(response as? HTTPURLResponse)
        let etag = try #require(http.value(forHTTPHeaderField: "ETag"))
        var conditional = URLRequest(url: server.url("/a.png"))
        conditional.setValue(etag, forHTTPHeaderField: "If-None-Match")
        let (_, second) = try await URLSession(configuration: .ephemeral).data(for: conditional)

        // Then
        #expect(data.count == 11)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "image/png")
        #expect(http.value(forHTTPHeaderField: "Last-Modified") != nil)
        #expect((second as? HTTPURLResponse)?.statusCode == 304)
        #expect(try server.requestCount(path: "/a.png") == 2)
        #expect(try server.loggedRequests().last?.ifNoneMatch == etag)
    }

    @Test(.enabled(if: FaultServer.isAvailable))
    func faultServerRecordsRequestsBeforeAnswering() async throws {
        let server = try FaultServer()
        defer { server.stop() }
        let key = UUID().uuidString
        let session = URLSession(configuration: .ephemeral)
        let (_, first) = try await session.data(from: server.url("/flaky?key=\(key)&fail=1"))
        let (body, second) = try await session.data(from: server.url("/flaky?key=\(key)&fail=1"))
        #expect((first as? HTTPURLResponse)?.statusCode == 500)
        #expect((second as? HTTPURLResponse)?.statusCode == 200)
        #expect(body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(try server.requestCount(prefix: "/flaky?key=\(key)") == 2)
    }
}
