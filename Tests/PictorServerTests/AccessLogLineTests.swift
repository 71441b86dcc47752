import Foundation
import Testing
@testable import PictorServer

/// The access log's lines: escaping, and the cap on how much of a target a line keeps.
struct AccessLogLineTests {
    static func entry(target: String) -> AccessLogLine.Entry {
        AccessLogLine.Entry(time: Date(timeIntervalSince1970: 0), client: "127.0.0.1", method: "GET", target: target,
                            status: 414, bytes: 0, milliseconds: 1)
    }

    @Test func aLongTargetIsCutWithItsRemainderCounted() {
        let target = "/" + String(repeating: "a", count: 31_999)
        let text = AccessLogLine.render(Self.entry(target: target), as: .text)
        #expect(text.contains("\"GET /" + String(repeating: "a", count: 1023) + "...[+30976 bytes]\" 414 "), "\(text.prefix(80))")
        #expect(text.utf8.count < 1200)
        let json = AccessLogLine.render(Self.entry(target: target), as: .json)
        #expect(json.contains(#""path":"/"# + String(repeating: "a", count: 1023) + #"...[+30976 bytes]","#))
        #expect(json.utf8.count < 1200)
    }

    @Test func escapedBytesCountAsTheirOwnLengthNotTheirEscapes() {
        // 1,024 control bytes: kept whole (each escaped as four characters), nothing cut.
        let target = String(repeating: "\u{1}", count: 1024)
        let text = AccessLogLine.render(Self.entry(target: target), as: .text)
        #expect(!text.contains("...[+"))
        #expect(text.contains(String(repeating: "\\x01", count: 1024)))
    }

    @Test func aShortTargetIsAsSent() {
        let text = AccessLogLine.render(Self.entry(target: "/sig/rs:fit:16:16/plain/a.jpg"), as: .text)
        #expect(text == "1970-01-01T00:00:00.000Z 127.0.0.1 \"GET /sig/rs:fit:16:16/plain/a.jpg\" 414 0 1.0ms")
    }

    /// The hand-written timestamp is what an ISO 8601 formatter with milliseconds writes, in UTC.
    @Test(arguments: [0, 1.5, 59.999, 86_399.001, 951_782_400.25, 1_796_000_000.125, 4_102_444_799.999])
    func timestampsAreISO8601InUTCWithMilliseconds(_ seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        let expected = formatter.string(from: date)
        #expect(AccessLogLine.timestamp(date) == expected)
    }

    @Test func fieldsWithQuotesAndBackslashesAreStillEscaped() {
        #expect(AccessLogLine.escapedText(#"a"b\c"#) == #"a\x22b\x5cc"#)
        #expect(AccessLogLine.escapedText("plain/ascii") == "plain/ascii")
        #expect(AccessLogLine.jsonString(#"a"b\c"#) == #""a\"b\\c""#)
        #expect(AccessLogLine.jsonString("plain") == #""plain""#)
        // JSON escapes name code points, not bytes: `é` is \u00e9 (read back as é, where its two
        // UTF-8 bytes escaped one by one read back as "Ã©"), and a character past U+FFFF is a
        // surrogate pair. The line stays ASCII, U+2028 and U+2029 escaped.
        #expect(AccessLogLine.jsonString("café") == #""caf\u00e9""#)
        #expect(AccessLogLine.jsonString("a😀b") == #""a\ud83d\ude00b""#)
        #expect(AccessLogLine.jsonString("x\u{2028}\u{7F}\u{1}") == #""x\u2028\u007f\u0001""#)
        for text in ["café", "a😀b", "x\u{2028}\u{7F}\u{1}", "\u{FFFD}", "\"\\\n"] {
            let decoded = try? JSONDecoder().decode(String.self, from: Data(AccessLogLine.jsonString(text).utf8))
            #expect(decoded == text, "\(text.debugDescription)")
        }
    }
}
