import Foundation
import Pictor
import Testing
@testable import PictorCLI
import PictorTestSupport

/// `--cache-key-ignore-query`: presigned URLs of one object, which differ only in their
/// signature and dates, share one disk entry, and each request still sends its whole URL (nginx
/// logs the query it received).
@Suite(.enabled(if: NginxServer.isAvailable && FileManager.default.fileExists(atPath: corpusPNGSuite.path)))
struct CacheKeyIgnoreQueryTests {
    /// An nginx serving one PNG fresh for an hour under `/fresh/` and stale at once (`no-cache`,
    /// with its `ETag`) under `/stale/`, and a cache directory; both removed by `cleanUp`.
    struct Origin {
        let server: NginxServer
        let root: URL
        let cache: String

        init() async throws {
            root = try makeTemporaryDirectory("presigned-origin")
            cache = root.path + "-cache"
            for folder in ["fresh", "stale"] {
                let directory = root.appendingPathComponent(folder)
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try FileManager.default.copyItem(
                    at: corpusPNGSuite.appendingPathComponent("basn2c08.png"), to: directory.appendingPathComponent("a.png"))
            }
            let root = root
            server = try await offPool {
                try NginxServer.start(root: root, extraServerConfig: """
                    location /fresh/ { expires 1h; }
                    location /stale/ { add_header Cache-Control no-cache; }
                    """)
            }
        }

        func cleanUp() {
            server.stop()
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(atPath: cache)
        }

        /// `path` and `query` as a URL of this server.
        func url(_ path: String, _ query: String) -> String { server.url(path).absoluteString + "?" + query }

        /// `pictor` with this cache, and `--cache-key-ignore-query` for each of `ignoring`.
        func run(_ args: [String], ignoring: [String] = ["X-Amz-*", "Expires"]) async -> (code: Int32, output: String) {
            let (code, console) = await runPictor(
                args + ["--cache-dir", cache] + ignoring.flatMap { ["--cache-key-ignore-query", $0] })
            return (code, console.output + console.errors)
        }

        /// The request URIs (path and query) nginx received under `prefix`, oldest first.
        func requests(_ prefix: String) throws -> [NginxServer.LoggedRequest] {
            try server.loggedRequests().filter { $0.uri.hasPrefix(prefix) }
        }
    }

    @Test func aFreshEntryServesEveryPresignedURLOfItsObjectWithoutARequest() async throws {
        let origin = try await Origin()
        defer { origin.cleanUp() }
        let firstQuery = "v=1&X-Amz-Date=20250101T000000Z&X-Amz-Signature=aaa&Expires=100"
        let first = origin.url("/fresh/a.png", firstQuery)
        let second = origin.url("/fresh/a.png", "X-Amz-Signature=bbb&v=1&X-Amz-Date=20250102T000000Z&Expires=200")
        let third = origin.url("/fresh/a.png", "v=1&X-Amz-Signature=ddd&X-Amz-Date=20250103T000000Z")
        let otherVersion = origin.url("/fresh/a.png", "v=2&X-Amz-Signature=ccc")

        let cold = await origin.run(["prefetch", first, "--json"])
        #expect(cold.code == 0, "\(cold.output)")
        #expect(cold.output.contains(#""layer":"network""#), "\(cold.output)")
        let warm = await origin.run(["prefetch", second, "--json"])
        #expect(warm.code == 0, "\(warm.output)")
        #expect(warm.output.contains(#""layer":"disk""#), "\(warm.output)")
        // What went out is the first URL, whole: its path and query as given.
        #expect(try origin.requests("/fresh/").map(\.uri) == ["/fresh/a.png?" + firstQuery])

        // Found by `cache has` with the same names; without them, the key is the whole URL.
        #expect(await origin.run(["cache", "has", second]).code == 0)
        #expect(await origin.run(["cache", "has", second], ignoring: []).code == 1)
        // A parameter that is not ignored still tells entries apart.
        let other = await origin.run(["fetch", otherVersion, "--json"])
        #expect(other.output.contains(#""layer":"network""#), "\(other.output)")
        #expect(try origin.requests("/fresh/").count == 2)
        // `cache rm` removes the shared entry by any of its URLs.
        let removed = await origin.run(["cache", "rm", third])
        #expect(removed.output.contains("removed\t"), "\(removed.output)")
        #expect(await origin.run(["cache", "has", first]).code == 1)
    }

    /// A stale entry is revalidated, by the URL of this run, with its whole query.
    @Test func aStaleEntryIsRevalidatedWithTheNewURL() async throws {
        let origin = try await Origin()
        defer { origin.cleanUp() }
        let first = origin.url("/stale/a.png", "X-Amz-Signature=aaa&Expires=100")
        let second = origin.url("/stale/a.png", "X-Amz-Signature=bbb&Expires=200")

        #expect(await origin.run(["prefetch", first]).code == 0)
        let warm = await origin.run(["prefetch", second, "--json"])
        #expect(warm.code == 0, "\(warm.output)")
        #expect(warm.output.contains(#""revalidated":true"#), "\(warm.output)")
        let requests = try origin.requests("/stale/")
        #expect(requests.map(\.uri) == ["/stale/a.png?X-Amz-Signature=aaa&Expires=100", "/stale/a.png?X-Amz-Signature=bbb&Expires=200"])
        #expect(requests.map(\.status) == [200, 304])
        #expect(requests.last?.ifNoneMatch != nil)
    }
}

/// The option's values are checked before anything is loaded.
@Suite struct CacheKeyIgnoreQueryOptionTests {
    @Test(arguments: ["", "X-*-Date", "*X"])
    func aNameThatCannotMeanWhatItSaysIsAUsageError(_ name: String) async {
        let (code, console) = await runPictor(["fetch", "https://example.org/a.png", "--no-cache", "--cache-key-ignore-query", name])
        #expect(code == 64, "\(console.errors)")
        #expect(console.errors.contains("--cache-key-ignore-query"), "\(console.errors)")
    }

    @Test func theNamesMakeTheCommandsCacheKeys() throws {
        var parser = ArgumentParser(
            ["--cache-key-ignore-query", "X-Amz-*", "--cache-key-ignore-query=Expires"], declared: CLICommandOptions.fetch.options)
        let context = CommandContext(console: RecordingConsole().console, environment: ["HOME": "/nonexistent-home"])
        let options = try CacheOptions.parse(&parser, context: context, allowsNoCache: true)
        #expect(options.ignoredQueryParameters == ["X-Amz-*", "Expires"])
        let stack = try PipelineStack(cache: CacheOptions(
            directory: options.directory, keyFile: nil, disabled: true, ignoredQueryParameters: options.ignoredQueryParameters),
            console: RecordingConsole().console)
        let request = ImageRequest(url: URL(string: "https://h/a.png?X-Amz-Signature=1&v=2&Expires=3")!)
        #expect(stack.pipeline.dataCacheKey(for: request) == "https://h/a.png?v=2")
    }
}
