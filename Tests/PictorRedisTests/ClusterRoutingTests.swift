import Foundation
import Testing
@testable import PictorRedis

@Suite struct ClusterSlotTests {
    @Test func crc16KnownValue() {
        #expect(ClusterSlot.crc16(Array("123456789".utf8)) == 0x31C3)
    }

    @Test func knownSlots() {
        #expect(ClusterSlot.hashSlot(for: "foo") == 12182)
        #expect(ClusterSlot.hashSlot(for: "bar") == 5061)
        #expect(ClusterSlot.hashSlot(for: "") == 0)
    }

    @Test func hashTags() {
        #expect(ClusterSlot.hashSlot(for: "{user1000}.following") == ClusterSlot.hashSlot(for: "{user1000}.followers"))
        #expect(ClusterSlot.hashSlot(for: "{user1000}.following") == ClusterSlot.hashSlot(for: "user1000"))
        // An empty tag does not count: the whole key is hashed.
        #expect(ClusterSlot.hashSlot(for: "foo{}{bar}") == Int(ClusterSlot.crc16(Array("foo{}{bar}".utf8)) % 16384))
        // The tag ends at the first "}" after the first "{".
        #expect(ClusterSlot.hashSlot(for: "foo{{bar}}zap") == ClusterSlot.hashSlot(for: "{bar"))
        #expect(ClusterSlot.hashSlot(for: "foo{{bar}}zap") == Int(ClusterSlot.crc16(Array("{bar".utf8)) % 16384))
        #expect(ClusterSlot.hashSlot(for: "foo{bar}{zap}") == ClusterSlot.hashSlot(for: "bar"))
        // No closing brace: the whole key.
        #expect(ClusterSlot.hashSlot(for: "foo{bar") == Int(ClusterSlot.crc16(Array("foo{bar".utf8)) % 16384))
    }

    @Test func binaryKeys() {
        let key = Data([0, 0xFF, 0x7B, 0x61, 0x7D, 0x00])  // "\0\xff{a}\0"
        #expect(ClusterSlot.hashSlot(for: key) == ClusterSlot.hashSlot(for: "a"))
    }
}

@Suite struct RedirectReplyTests {
    @Test func moved() {
        #expect(RedirectReply(errorMessage: "MOVED 3999 127.0.0.1:6381", replyHost: "x")
            == .moved(slot: 3999, endpoint: RedisEndpoint(host: "127.0.0.1", port: 6381)))
    }

    @Test func ask() {
        #expect(RedirectReply(errorMessage: "ASK 12182 10.1.2.3:7002", replyHost: "x")
            == .ask(slot: 12182, endpoint: RedisEndpoint(host: "10.1.2.3", port: 7002)))
    }

    @Test func emptyHostMeansTheAnsweringNode() {
        #expect(RedirectReply(errorMessage: "MOVED 1 :7001", replyHost: "10.0.0.9")
            == .moved(slot: 1, endpoint: RedisEndpoint(host: "10.0.0.9", port: 7001)))
    }

    @Test func ipv6() {
        #expect(RedirectReply(errorMessage: "MOVED 7 ::1:7001", replyHost: "x")
            == .moved(slot: 7, endpoint: RedisEndpoint(host: "::1", port: 7001)))
    }

    @Test func tryAgainAndClusterDown() {
        #expect(RedirectReply(errorMessage: "TRYAGAIN Multiple keys request during rehashing of slot", replyHost: "x") == .tryAgain)
        #expect(RedirectReply(errorMessage: "CLUSTERDOWN The cluster is down", replyHost: "x") == .clusterDown("CLUSTERDOWN The cluster is down"))
    }

    @Test(arguments: ["ERR unknown command", "OOM command not allowed", "MOVED", "MOVED x 1.2.3.4:1", "MOVED 16384 h:1",
                      "MOVED 1 h:0", "MOVED 1 h", "ASK 1 h:99999", "WRONGTYPE Operation", "MOVEDX 1 h:1"])
    func ordinaryErrors(message: String) {
        #expect(RedirectReply(errorMessage: message, replyHost: "x") == nil)
    }
}

@Suite struct SlotMapTests {
    func node(_ host: String, _ port: Int64) -> RedisReply { .array([.bulk(Data(host.utf8)), .integer(port), .bulk(Data("id".utf8))]) }

    @Test func fromClusterSlots() throws {
        let reply = RedisReply.array([
            .array([.integer(0), .integer(5460), node("127.0.0.1", 7000), node("127.0.0.1", 7100)]),
            .array([.integer(5461), .integer(10922), node("127.0.0.1", 7001)]),
            .array([.integer(10923), .integer(16383), node("", 7002)]),
        ])
        let map = try SlotMap(clusterSlotsReply: reply, replyHost: "10.0.0.5")
        #expect(map.coversAllSlots)
        #expect(map.primary(forSlot: 0) == RedisEndpoint(host: "127.0.0.1", port: 7000))
        #expect(map.primary(forSlot: 5461) == RedisEndpoint(host: "127.0.0.1", port: 7001))
        #expect(map.primary(forSlot: 16383) == RedisEndpoint(host: "10.0.0.5", port: 7002))
        #expect(map.primaries.count == 3)
        #expect(map.primary(forSlot: 16384) == nil)
    }

    @Test func movedUpdatesOneSlotAndDropsEmptyPrimaries() throws {
        var map = SlotMap()
        let a = RedisEndpoint(host: "a", port: 1), b = RedisEndpoint(host: "b", port: 2)
        map.assign(0...16382, to: a)
        map.assign(16383...16383, to: b)
        #expect(map.coversAllSlots)
        map.assign(16383...16383, to: a)
        #expect(map.primaries == [a])
        #expect(map.primary(forSlot: 16383) == a)
    }

    @Test func partialCoverage() throws {
        let map = try SlotMap(clusterSlotsReply: .array([.array([.integer(0), .integer(99), node("h", 1)])]), replyHost: "x")
        #expect(!map.coversAllSlots)
        #expect(map.primary(forSlot: 100) == nil)
    }

    @Test(arguments: [RedisReply.status("OK"), .array([.integer(1)]), .array([.array([.integer(5), .integer(1), .array([])])]),
                      .array([.array([.integer(0), .integer(1), .array([.bulk(Data("h".utf8)), .integer(0)])])])])
    func malformed(reply: RedisReply) {
        #expect(throws: RedisError.self) { try SlotMap(clusterSlotsReply: reply, replyHost: "x") }
    }

    @Test func topologyDetection() throws {
        let endpoint = RedisEndpoint(host: "h", port: 1)
        guard case .single(endpoint) = try RedisTopology(clusterSlotsReply: .error("ERR This instance has cluster support disabled"), from: endpoint)
        else { Issue.record("not single"); return }
        // A user that may not run CLUSTER SLOTS, and a server without the CLUSTER command.
        for refusal in ["NOPERM User app has no permissions to run the 'cluster|slots' command",
                        "ERR unknown command 'CLUSTER', with args beginning with: 'SLOTS' "] {
            guard case .single(endpoint) = try RedisTopology(clusterSlotsReply: .error(refusal), from: endpoint)
            else { Issue.record("not single for \(refusal)"); return }
        }
        #expect(throws: RedisError.server("NOAUTH Authentication required.")) {
            try RedisTopology(clusterSlotsReply: .error("NOAUTH Authentication required."), from: endpoint)
        }
    }
}
