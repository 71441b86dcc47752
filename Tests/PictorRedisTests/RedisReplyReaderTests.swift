import Foundation
import Testing
@testable import PictorRedis

/// `RedisReply.read`: hiredis's reader over bytes, as a connection reads a server's replies.
struct RedisReplyReaderTests {
    @Test func readsEachKindAndLeavesAnIncompleteReplyOut() throws {
        let bytes = Data("+PONG\r\n-MOVED 3999 127.0.0.1:6381\r\n:42\r\n$5\r\nhello\r\n$-1\r\n*2\r\n:1\r\n$0\r\n\r\n$10\r\nhal".utf8)
        let (replies, incomplete) = try #require(RedisReply.read(bytes))
        #expect(replies == [.status("PONG"), .error("MOVED 3999 127.0.0.1:6381"), .integer(42), .bulk(Data("hello".utf8)), .null,
                            .array([.integer(1), .bulk(Data())])])
        #expect(incomplete)
        #expect(RedirectReply(errorMessage: "MOVED 3999 127.0.0.1:6381", replyHost: "x") == .moved(slot: 3999, endpoint: RedisEndpoint(host: "127.0.0.1", port: 6381)))
    }

    @Test func aProtocolErrorIsNil() {
        #expect(RedisReply.read(Data("!nonsense\r\n".utf8)) == nil)
        #expect(RedisReply.read(Data()).map { $0.replies.isEmpty && !$0.incomplete } == true)
    }

    @Test func aClusterSlotsReplyMakesItsMap() throws {
        let text = "*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n$0\r\n\r\n:7000\r\n$2\r\nid\r\n"
        let reply = try #require(RedisReply.read(Data(text.utf8))?.replies.first)
        let map = try SlotMap(clusterSlotsReply: reply, replyHost: "127.0.0.1")
        #expect(map.primary(forSlot: 5) == RedisEndpoint(host: "127.0.0.1", port: 7000))
    }
}
