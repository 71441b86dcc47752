import Foundation
import Testing
@testable import PictorRedis
import PictorTestSupport

/// A real three-primary cluster per test (about a second to create).
@Suite(.enabled(if: RedisCluster.isAvailable), .serialized)
struct RedisClusterTests {
    @Test func keysSpreadOverAllPrimaries() async throws {
        let cluster = try RedisCluster()
        defer { cluster.stop() }
        let client = try makeClient(cluster.seedURL)
        defer { client.close() }
        let keys = (0..<300).map { "spread:\($0)" }
        for key in keys {
            #expect(try await client.send(["SET", key, "v-\(key)"], key: key) == .status("OK"))
        }
        for key in keys {
            #expect(try await client.send(["GET", key], key: key) == .bulk(.utf8("v-\(key)")))
        }
        let sizes = try await client.sendToEachPrimary(["DBSIZE"])
        #expect(sizes.count == 3)
        #expect(sizes.allSatisfy { ($0.integer ?? 0) > 0 })
        #expect(sizes.compactMap(\.integer).reduce(0, +) == 300)
        // Each node holds exactly the keys of its slots.
        for node in cluster.nodes {
            guard case .integer(let size) = try node.command(["DBSIZE"]) else { Issue.record("DBSIZE"); continue }
            let expected = try keys.filter { try cluster.owner(ofSlot: ClusterSlot.hashSlot(for: $0)).port == node.port }.count
            #expect(size == expected)
        }
        #expect(client.currentSlotMap?.coversAllSlots == true)
        #expect(client.currentSlotMap?.primaries.count == 3)
    }

    @Test func pipelineWithHashTagAndDeadFirstSeed() async throws {
        let cluster = try RedisCluster()
        defer { cluster.stop() }
        let dead = try { () throws -> Int in
            let server = try RedisServer()
            defer { server.stop() }
            return server.port
        }()
        let client = try makeClient("redis://127.0.0.1:\(dead)," + cluster.nodes.map(\.address).joined(separator: ","))
        defer { client.close() }
        let commands = (0..<20).map { ["SET", "{user42}.field\($0)", "\($0)"] } + (0..<20).map { ["GET", "{user42}.field\($0)"] }
        let replies = try await client.pipeline(commands, key: "{user42}")
        #expect(replies[..<20].allSatisfy { $0 == .status("OK") })
        #expect(Array(replies[20...]) == (0..<20).map { .bulk(.utf8("\($0)")) })
        let owner = try cluster.owner(ofSlot: ClusterSlot.hashSlot(for: "user42"))
        #expect(try owner.command(["GET", "{user42}.field7"]) == .bulk("7"))
    }

    @Test func movedAfterMigrationThenAskDuringOne() async throws {
        let cluster = try RedisCluster()
        defer { cluster.stop() }
        let client = try makeClient(cluster.seedURL)
        defer { client.close() }

        // MOVED: the slot of "foo" moves while the client holds the old map.
        let slot = ClusterSlot.hashSlot(for: "foo")
        #expect(try await client.send(["SET", "foo", "bar"], key: "foo") == .status("OK"))
        let before = try cluster.owner(ofSlot: slot)
        let target = try #require(cluster.nodes.first { $0.port != before.port })
        #expect(client.currentSlotMap?.primary(forSlot: slot)?.port == before.port)
        try cluster.migrateSlot(slot, to: target)
        #expect(try before.command(["GET", "foo"]).description.hasPrefix("(error) MOVED"))
        #expect(try await client.send(["GET", "foo"], key: "foo") == .bulk(.utf8("bar")))
        #expect(client.currentSlotMap?.primary(forSlot: slot)?.port == target.port)
        // The pipeline form follows MOVED too.
        let back = try #require(cluster.nodes.first { $0.port != target.port })
        try cluster.migrateSlot(slot, to: back)
        #expect(try await client.pipeline([["GET", "foo"], ["STRLEN", "foo"]], key: "foo") == [.bulk(.utf8("bar")), .integer(3)])
        #expect(client.currentSlotMap?.primary(forSlot: slot)?.port == back.port)

        // ASK: a slot in mid-migration, one of its keys moved, the other not yet.
        let tagSlot = ClusterSlot.hashSlot(for: "{ask}")
        for key in ["{ask}moved", "{ask}stays"] {
            #expect(try await client.send(["SET", key, "value of \(key)"], key: key) == .status("OK"))
        }
        let source = try cluster.owner(ofSlot: tagSlot)
        let importer = try #require(cluster.nodes.first { $0.port != source.port })
        let migration = try cluster.beginSlotMigration(tagSlot, to: importer)
        try cluster.moveKeys(["{ask}moved"], of: migration)
        #expect(try source.command(["GET", "{ask}moved"]).description.hasPrefix("(error) ASK"))
        #expect(try await client.send(["GET", "{ask}moved"], key: "{ask}moved") == .bulk(.utf8("value of {ask}moved")))
        #expect(try await client.send(["GET", "{ask}stays"], key: "{ask}stays") == .bulk(.utf8("value of {ask}stays")))
        let pipelined = try await client.pipeline([["GET", "{ask}stays"], ["GET", "{ask}moved"], ["EXISTS", "{ask}stays"]], key: "{ask}")
        #expect(pipelined == [.bulk(.utf8("value of {ask}stays")), .bulk(.utf8("value of {ask}moved")), .integer(1)])
        // ASK does not change the map: the slot still belongs to the source until the end.
        #expect(client.currentSlotMap?.primary(forSlot: tagSlot)?.port == source.port)
        try cluster.moveAllKeys(of: migration)
        try cluster.finishSlotMigration(migration)
        #expect(try await client.send(["GET", "{ask}stays"], key: "{ask}stays") == .bulk(.utf8("value of {ask}stays")))
        #expect(client.currentSlotMap?.primary(forSlot: tagSlot)?.port == importer.port)
    }

    @Test func redirectionLoopIsBounded() async throws {
        let cluster = try RedisCluster()
        defer { cluster.stop() }
        let client = try makeClient(cluster.seedURL)
        defer { client.close() }
        let slot = ClusterSlot.hashSlot(for: "loop")
        #expect(try await client.send(["GET", "loop"], key: "loop") == .null)
        // (A slot can only be given away while its node holds no key of it.) The owner is told another node has the slot, which still believes the owner has it:
        // each answers MOVED to the other.
        let owner = try cluster.owner(ofSlot: slot)
        let other = try #require(cluster.nodes.first { $0.port != owner.port })
        #expect(try owner.command(["CLUSTER", "SETSLOT", "\(slot)", "NODE", try cluster.nodeID(of: other)]) == .status("OK"))
        await #expect(throws: RedisError.tooManyRedirections) { try await client.send(["GET", "loop"], key: "loop") }
        // Keys of other slots are unaffected.
        #expect(try await client.send(["SET", "elsewhere", "2"], key: "elsewhere") == .status("OK"))
    }
}
