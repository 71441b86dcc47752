import Foundation
import Testing
@testable import PictorRedis
import PictorTestSupport

@Suite(.enabled(if: RedisServer.isAvailable), .serialized)
final class RedisSingleNodeTests {
    let server: RedisServer

    init() throws { server = try RedisServer() }
    deinit { server.stop() }

    @Test func binaryRoundTrip() async throws {
        let client = try makeClient(server.url)
        defer { client.close() }
        let key = Data([0x6B, 0x00, 0xFF, 0x0A])  // "k\0\xff\n"
        var value = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        value[0] = 0
        value[value.count - 1] = 0
        #expect(try await client.send([.utf8("SET"), key, value], key: key) == .status("OK"))
        #expect(try await client.send([.utf8("GET"), key], key: key) == .bulk(value))
        #expect(try await client.send([.utf8("STRLEN"), key], key: key) == .integer(1 << 20))
        #expect(try await client.send([.utf8("GET"), .utf8("missing")], key: .utf8("missing")) == .null)
        #expect(try await client.send([.utf8("SET"), .utf8("empty"), Data()], key: .utf8("empty")) == .status("OK"))
        #expect(try await client.send([.utf8("GET"), .utf8("empty")], key: .utf8("empty")) == .bulk(Data()))
    }

    @Test func replyKinds() async throws {
        let client = try makeClient(server.url)
        defer { client.close() }
        #expect(try await client.send(["PING"]) == .status("PONG"))
        #expect(try await client.send(["DEL", "list"], key: "list").integer != nil)
        #expect(try await client.send(["RPUSH", "list", "a", "b"], key: "list") == .integer(2))
        #expect(try await client.send(["LRANGE", "list", "0", "-1"], key: "list") == .array([.bulk(.utf8("a")), .bulk(.utf8("b"))]))
        #expect(try await client.send(["GET", "list"], key: "list").errorMessage?.hasPrefix("WRONGTYPE") == true)
        #expect(try await client.send(["NO-SUCH-COMMAND"]).errorMessage?.hasPrefix("ERR") == true)
        #expect(try await client.sendToEachPrimary(["DBSIZE"]).count == 1)
    }

    @Test func pipelineOfHundred() async throws {
        let client = try makeClient(server.url)
        defer { client.close() }
        let sets = (0..<50).map { ["SET", "p:\($0)", "value-\($0)"] }
        let gets = (0..<50).map { ["GET", "p:\($0)"] }
        let replies = try await client.pipeline(sets + gets, key: "p:0")
        #expect(replies.count == 100)
        #expect(replies[..<50].allSatisfy { $0 == .status("OK") })
        #expect(Array(replies[50...]) == (0..<50).map { .bulk(.utf8("value-\($0)")) })
    }

    @Test func setNXPX() async throws {
        let client = try makeClient(server.url)
        defer { client.close() }
        _ = try await client.send(["DEL", "lock"], key: "lock")
        // A minute: long enough that a loaded machine cannot let it expire between two commands.
        #expect(try await client.send(["SET", "lock", "a", "NX", "PX", "60000"], key: "lock") == .status("OK"))
        #expect(try await client.send(["SET", "lock", "b", "NX", "PX", "60000"], key: "lock") == .null)
        #expect(try await client.send(["GET", "lock"], key: "lock") == .bulk(.utf8("a")))
        let ttl = try await client.send(["PTTL", "lock"], key: "lock").integer ?? -1
        #expect(ttl > 0 && ttl <= 60000)
    }

    @Test func concurrentCallersShareTheBoundedPool() async throws {
        let client = try makeClient(server.url) { $0.maximumConnectionsPerNode = 2 }
        defer { client.close() }
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<40 {
                group.addTask {
                    let key = "c:\(i)"
                    _ = try await client.send(["SET", key, "\(i)"], key: key)
                    return try await client.send(["GET", key], key: key) == .bulk(.utf8("\(i)"))
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 40 && results.allSatisfy { $0 })
        let clients = try server.command(["CLIENT", "LIST"]).text ?? ""
        // Two pooled connections at most, plus the CLIENT LIST connection itself.
        #expect(clients.split(separator: "\n").count <= 3)
    }

    @Test func databaseFromURL() async throws {
        let db5 = try makeClient(server.url + "/5")
        let db0 = try makeClient(server.url)
        defer { db5.close(); db0.close() }
        _ = try await db0.send(["DEL", "where"], key: "where")
        #expect(try await db5.send(["SET", "where", "five"], key: "where") == .status("OK"))
        #expect(try await db0.send(["GET", "where"], key: "where") == .null)
        #expect(try await db5.send(["GET", "where"], key: "where") == .bulk(.utf8("five")))
        #expect(try server.command(["SELECT", "5"]) == .status("OK"))
    }

    @Test func closedClientRefuses() async throws {
        let client = try makeClient(server.url)
        _ = try await client.send(["PING"])
        client.close()
        await #expect(throws: RedisError.self) { try await client.send(["PING"]) }
    }
}

@Suite(.enabled(if: RedisServer.isAvailable), .serialized)
final class RedisAuthTests {
    let server: RedisServer

    init() throws { server = try RedisServer(extraArguments: ["--requirepass", "right-pass"]) }
    deinit { server.stop() }

    @Test func rightPassword() async throws {
        let client = try makeClient("redis://:right-pass@127.0.0.1:\(server.port)")
        defer { client.close() }
        #expect(try await client.send(["SET", "a", "1"], key: "a") == .status("OK"))
        #expect(try await client.send(["GET", "a"], key: "a") == .bulk(.utf8("1")))
    }

    @Test func userAndPassword() async throws {
        let client = try makeClient("redis://default:right-pass@127.0.0.1:\(server.port)")
        defer { client.close() }
        #expect(try await client.send(["PING"]) == .status("PONG"))
    }

    @Test func wrongPassword() async throws {
        let client = try makeClient("redis://:wrong-pass@127.0.0.1:\(server.port)")
        defer { client.close() }
        do {
            _ = try await client.send(["PING"])
            Issue.record("a wrong password was accepted")
        } catch {
            guard error.kind == .connectionFailed, let reason = error.detail else { Issue.record("unexpected \(error)"); return }
            #expect(reason.contains("AUTH refused"))
            #expect(reason.contains("WRONGPASS"))
            #expect(!error.description.contains("wrong-pass"))
        }
    }

    @Test func noPassword() async throws {
        let client = try makeClient(server.url)
        defer { client.close() }
        await #expect(throws: RedisError.server("NOAUTH Authentication required.")) { try await client.send(["PING"]) }
    }
}
