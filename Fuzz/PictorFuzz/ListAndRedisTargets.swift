import Foundation
import PictorCLI
import PictorRedis

/// Targets over the URL list `prefetch` reads and the replies a Redis server sends.
enum ListAndRedisTargets {
    /// `URLList.lines`: each line is a URL candidate (no line break, no blanks around it, not a
    /// comment), numbers increase, and the ASCII fast path agrees with the Unicode split that
    /// every other list takes.
    @Sendable static func urlList(_ b: UnsafeRawBufferPointer) {
        let data = Data(b)
        let lines = URLList.lines(data)
        var previous = 0
        for (number, line) in lines {
            check(number > previous, "line numbers do not increase: \(number) after \(previous)")
            previous = number
            check(!line.isEmpty, "an empty line at \(number)")
            check(!URLList.isComment(line), "a comment at \(number): \(line.debugDescription)")
            check(!line.contains(where: \.isNewline), "a line break inside line \(number): \(line.debugDescription)")
            check(!line.first!.isWhitespace && !line.last!.isWhitespace, "blanks around line \(number): \(line.debugDescription)")
        }
        let model = unicodeLines(data)
        check(lines.map(\.number) == model.map(\.number) && lines.map(\.line) == model.map(\.line),
              "the fast path and the Unicode split disagree: \(lines.map(\.line)) against \(model.map(\.line))")
    }

    /// What `URLList.lines` promises, spelled the slow way for every input.
    static func unicodeLines(_ data: Data) -> [(number: Int, line: String)] {
        let text = String(decoding: data, as: UTF8.self)
        var out: [(number: Int, line: String)] = []
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = URLList.trimmingBlanks(raw.drop { $0 == "\u{FEFF}" })
            if !line.isEmpty, !URLList.isComment(line) { out.append((index + 1, line)) }
        }
        return out
    }

    /// Replies read by hiredis and copied as a connection copies them: each re-serialises to
    /// RESP that reads back equal; an error reply's redirection names a valid slot and port; a
    /// reply taken as `CLUSTER SLOTS` gives a map whose every slot is served by one of its
    /// primaries, or is refused.
    @Sendable static func redisReply(_ b: UnsafeRawBufferPointer) {
        // hiredis 0.14 (Debian 12) allocates an array's element table as soon as it reads its
        // count, with no cap (1.x has `maxelements`): a count of millions costs each run a huge
        // allocation and slows the search a hundredfold. Such inputs are skipped here; a
        // connection trusts its own server that far.
        guard !declaresHugeArray(b) else { return }
        guard let (replies, _) = RedisReply.read(Data(b)) else { return }
        for reply in replies {
            let again = RedisReply.read(resp(reply))
            check(again?.replies == [reply] && again?.incomplete == false, "\(reply) does not read back from its RESP")
            visit(reply)
            if let map = try? SlotMap(clusterSlotsReply: reply, replyHost: "127.0.0.1") {
                check(Set(map.primaries).count == map.primaries.count, "a primary listed twice")
                for slot in stride(from: 0, to: 16384, by: 97) {
                    if let owner = map.primary(forSlot: slot) {
                        check(map.primaries.contains(owner), "slot \(slot) is served by \(owner), not a primary")
                    }
                }
            }
        }
    }

    /// Whether a `*`, `%`, `~`, `>` or `|` line declares more than 65,536 elements.
    static func declaresHugeArray(_ b: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index < b.count {
            if [UInt8(ascii: "*"), UInt8(ascii: "%"), UInt8(ascii: "~"), UInt8(ascii: ">"), UInt8(ascii: "|")].contains(b[index]) {
                var value = 0
                var next = index + 1
                while next < b.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[next]) {
                    value = value * 10 + Int(b[next] - UInt8(ascii: "0"))
                    // Stops before the value can overflow.
                    if value > 65_536 { return true }
                    next += 1
                }
            }
            index += 1
        }
        return false
    }

    private static func visit(_ reply: RedisReply) {
        switch reply {
        case .error(let message):
            switch RedirectReply(errorMessage: message, replyHost: "127.0.0.1") {
            case .moved(let slot, let endpoint)?, .ask(let slot, let endpoint)?:
                check((0..<16384).contains(slot), "slot \(slot) from \(message.debugDescription)")
                check((1...65535).contains(endpoint.port), "port \(endpoint.port) from \(message.debugDescription)")
                check(!endpoint.host.isEmpty, "an empty host from \(message.debugDescription)")
            default:
                break
            }
        case .array(let elements):
            elements.forEach(visit)
        case .bulk(let data):
            check((0..<16384).contains(ClusterSlot.hashSlot(for: data)), "a hash slot out of range")
        default:
            break
        }
    }

    /// `reply` in RESP 2, as a server would send it.
    static func resp(_ reply: RedisReply) -> Data {
        switch reply {
        case .bulk(let data): return Data("$\(data.count)\r\n".utf8) + data + Data("\r\n".utf8)
        case .status(let text): return Data("+\(text)\r\n".utf8)
        case .error(let text): return Data("-\(text)\r\n".utf8)
        case .integer(let value): return Data(":\(value)\r\n".utf8)
        case .null: return Data("$-1\r\n".utf8)
        case .array(let elements): return elements.reduce(Data("*\(elements.count)\r\n".utf8)) { $0 + resp($1) }
        }
    }
}
