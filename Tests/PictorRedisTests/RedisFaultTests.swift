import Foundation
import Testing
@testable import PictorRedis
import PictorTestSupport

/// Servers that die, hang, fill up or are not Redis at all. No wall-clock upper bounds: a loaded
/// machine would break them; the calls returning at all, with the right error, is the point.
@Suite(.enabled(if: RedisServer.isAvailable), .serialized)
struct RedisFaultTests {
    @Test func serverStoppedThenRestarted() async throws {
        let server = try RedisServer()
        defer { server.stop() }
        let client = try makeClient(server.url)
        defer { client.close() }
        #expect(try await client.send(["SET", "k", "v"], key: "k") == .status("OK"))

        server.stop()
        for _ in 0..<3 {
            do {
                _ = try await client.send(["GET", "k"], key: "k")
                Issue.record("a stopped server answered")
            } catch {
                switch error.kind {
                case .connectionFailed, .connectionLost: break
                default: Issue.record("unexpected \(error)")
                }
            }
        }
        // Within the backoff, a connect is not even tried.
        do {
            _ = try await client.send(["GET", "k"], key: "k")
        } catch {
            guard let endpoint = error.endpoint else { Issue.record("unexpected \(error)"); return }
            #expect(endpoint.port == server.port)
        }

        try server.start()
        let recovered = await eventually(within: 15) { try await client.send(["PING"]) }
        #expect(try recovered.get() == .status("PONG"))
        #expect(try await client.send(["SET", "k", "again"], key: "k") == .status("OK"))
    }

    /// A single server whose ACL user may run only the commands the shared tier sends (not
    /// `CLUSTER SLOTS`) is used as one server: the tier was skipped as unavailable.
    @Test func aUserWithoutClusterPermissionUsesTheServer() async throws {
        let server = try RedisServer()
        defer { server.stop() }
        _ = try server.command(["ACL", "SETUSER", "app", "on", ">secret", "~*", "+@all", "-cluster"])
        let url = server.url.replacingOccurrences(of: "redis://", with: "redis://app:secret@")
        let client = try makeClient(url)
        defer { client.close() }
        #expect(try await client.send(["SET", "k", "v"], key: "k") == .status("OK"))
        #expect(try await client.send(["GET", "k"], key: "k") == .bulk(Data("v".utf8)))
    }

    @Test func nothingListening() async throws {
        let port = try { () throws -> Int in
            let server = try RedisServer()
            defer { server.stop() }
            return server.port
        }()
        // A backoff no loaded machine outlasts between the two attempts: the second must meet it.
        let client = try makeClient("redis://127.0.0.1:\(port)") { $0.reconnectInitialDelay = .seconds(600) }
        defer { client.close() }
        for attempt in 0..<2 {
            do {
                _ = try await client.send(["PING"])
                Issue.record("answered on a closed port")
            } catch {
                guard error.kind == .connectionFailed, let reason = error.detail else { Issue.record("unexpected \(error)"); continue }
                if attempt == 1 { #expect(reason.contains("backoff")) }
            }
        }
    }

    /// The client keeps the default timeouts, which are what is tested; the data is written
    /// through `server.command`, which a slow machine cannot time out.
    @Test func pausedServerTimesOut() async throws {
        let server = try await offPool { try RedisServer() }
        defer { server.stop() }
        #expect(try await offPool { try server.command(["SET", "k", "v"]) } == .status("OK"))
        let client = try makeClient(server.url, defaultTimeouts: true)
        defer { client.close() }
        // A pooled connection for the first GET to hang on; should a slow machine time this
        // out, that GET meets a new connection instead, which hangs all the same.
        _ = try? await client.send(["PING"])
        server.pause()
        await #expect(throws: RedisError.timeout) { try await client.send(["GET", "k"], key: "k") }
        // A new connection is accepted by the kernel but never answered either.
        await #expect(throws: RedisError.timeout) { try await client.send(["GET", "k"], key: "k") }
        server.resume()
        // The late replies ("v") went with the discarded connections: the answer is the new value.
        #expect(try await offPool { try server.command(["SET", "k", "w"]) } == .status("OK"))
        let answer = await eventually(within: 60) { try await client.send(["GET", "k"], key: "k") }
        #expect(try answer.get() == .bulk(.utf8("w")))
    }

    /// A Redis whose writes are paused (as during a coordinated failover) still accepts and
    /// reads, but answers no write until unpaused. The pause (a minute) outlasts any delay before
    /// the SET reaches the server, and ends once the timeout was seen (or, should the test fail
    /// first, in the defer). Not `ALL`: Redis 7.0 postpones `CLIENT UNPAUSE` itself then.
    @Test func clientPauseTimesOut() async throws {
        let server = try await offPool { try RedisServer() }
        defer { server.stop() }
        #expect(try await offPool { try server.command(["SET", "k", "v"]) } == .status("OK"))
        let client = try makeClient(server.url, defaultTimeouts: true)
        defer { client.close() }
        _ = try? await client.send(["PING"])
        #expect(try await offPool { try server.command(["CLIENT", "PAUSE", "60000", "WRITE"]) } == .status("OK"))
        defer { _ = try? server.command(["CLIENT", "UNPAUSE"]) }
        await #expect(throws: RedisError.timeout) { try await client.send(["SET", "k", "v"], key: "k") }
        #expect(try await offPool { try server.command(["CLIENT", "UNPAUSE"]) } == .status("OK"))
        // The SET's late "OK" went with the discarded connection: this answer is "v".
        let answer = await eventually(within: 60) { try await client.send(["GET", "k"], key: "k") }
        #expect(try answer.get() == .bulk(.utf8("v")))
    }

    @Test func outOfMemoryIsAnErrorReply() async throws {
        let server = try RedisServer(extraArguments: ["--maxmemory", "1mb", "--maxmemory-policy", "noeviction"])
        defer { server.stop() }
        let client = try makeClient(server.url)
        defer { client.close() }
        let value = Data(repeating: 0x61, count: 100_000)
        var oom: String?
        for i in 0..<50 where oom == nil {
            let key = Data("big:\(i)".utf8)
            oom = try await client.send([.utf8("SET"), key, value], key: key).errorMessage
        }
        #expect(oom?.hasPrefix("OOM") == true)
        // Reads still work, on the same client.
        #expect(try await client.send(["PING"]) == .status("PONG"))
    }

    @Test(.enabled(if: NginxServer.isAvailable)) func notARedisServer() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pictor-redis-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let http = try NginxServer.start(root: root)
        defer { http.stop() }
        let client = try makeClient("redis://127.0.0.1:\(http.port)")
        defer { client.close() }
        do {
            _ = try await client.send(["GET", "k"], key: "k")
            Issue.record("an HTTP server answered a Redis command")
        } catch {
            switch error.kind {
            case .protocolError, .connectionLost: break
            default: Issue.record("unexpected \(error)")
            }
        }
    }
}
