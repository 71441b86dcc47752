import PictorCore
@testable import PictorCurl
import Testing

/// The header callback's parser, fed lines as libcurl delivers them.
@Suite struct ResponseHeadParserTests {
    /// Feeds `lines` (each with CRLF added) and returns the events.
    @discardableResult
    func feed(_ parser: inout ResponseHeadParser, _ lines: [String]) -> [ResponseHeadParser.Event] {
        lines.map { line in
            Array((line + "\r\n").utf8).withUnsafeBytes { parser.consume($0) }
        }
    }

    @Test func aFinalResponse() {
        var parser = ResponseHeadParser()
        let events = feed(&parser, ["HTTP/1.1 200 OK", "Content-Type: image/png", "Content-Length:  98 ", ""])
        #expect(events == [.none, .none, .none, .finalResponseEnded])
        #expect(parser.isComplete)
        #expect(parser.statusCode == 200)
        #expect(parser.httpVersion == "HTTP/1.1")
        #expect(parser.headerFields == ["Content-Type": "image/png", "Content-Length": "98"])
        #expect(parser.contentLength == 98)
        #expect(parser.value(for: "content-type") == "image/png")
        #expect(!parser.isContentEncoded)
    }

    @Test func interimResponsesAreForgotten() {
        var parser = ResponseHeadParser()
        let events = feed(&parser, [
            "HTTP/1.1 100 Continue", "", "HTTP/1.1 103 Early Hints", "Link: </a.css>; rel=preload", "",
            "HTTP/1.1 404 Not Found", "Content-Length: 5", "",
        ])
        #expect(events.filter { $0 != .none } == [.interimResponseEnded, .interimResponseEnded, .finalResponseEnded])
        #expect(parser.statusCode == 404)
        #expect(parser.headerFields == ["Content-Length": "5"])
    }

    @Test func repeatedNamesAreJoinedUnderTheFirstSpelling() {
        var parser = ResponseHeadParser()
        feed(&parser, ["HTTP/1.1 200 OK", "Vary: Accept", "vary: Accept-Encoding", "Set-Cookie: a=1", "Set-Cookie: b=2", ""])
        #expect(parser.headerFields == ["Vary": "Accept, Accept-Encoding", "Set-Cookie": "a=1, b=2"])
    }

    /// A head of thousands of distinct names (a hostile server's) is looked up by name rather
    /// than searched line by line; repeated names still join, in any case, past that point.
    @Test func aHeadOfManyFieldsStillJoinsRepeatedNames() {
        var parser = ResponseHeadParser()
        let names = (0..<3_000).map { "X-Filler-\($0)" }
        feed(&parser, ["HTTP/1.1 200 OK"] + names.map { "\($0): a" } + ["x-filler-7: b", "X-FILLER-2999: c", "Content-Length: 4", ""])
        #expect(parser.isComplete)
        #expect(parser.fields.count == 3_001)
        #expect(parser.value(for: "x-filler-7") == "a, b")
        #expect(parser.value(for: "X-Filler-2999") == "a, c")
        #expect(parser.value(for: "x-filler-1500") == "a")
        #expect(parser.contentLength == 4)
        #expect(parser.fields[7].name == "X-Filler-7")
        // A new head starts from nothing.
        feed(&parser, ["HTTP/1.1 200 OK", "X-Filler-7: d", ""])
        #expect(parser.fields.count == 1 && parser.value(for: "x-filler-7") == "d")
    }

    @Test func foldedLinesContinueTheValue() {
        var parser = ResponseHeadParser()
        feed(&parser, ["HTTP/1.1 200 OK", "X-Long: one", "\t two", "  three", ""])
        #expect(parser.value(for: "x-long") == "one two three")
    }

    @Test func trailersAfterTheHeadAreIgnoredButANewStatusLineStartsOver() {
        var parser = ResponseHeadParser()
        feed(&parser, ["HTTP/2 200", "content-length: 3", "", "x-trailer: 1"])
        #expect(parser.httpVersion == "HTTP/2")
        #expect(parser.value(for: "x-trailer") == nil)
        feed(&parser, ["HTTP/1.1 401 Unauthorized"])
        #expect(!parser.isComplete)
        #expect(parser.statusCode == 401)
        #expect(parser.headerFields.isEmpty)
    }

    @Test func linesWithoutAStatusLineOrColonAreIgnored() {
        var parser = ResponseHeadParser()
        feed(&parser, ["Stray: before", "", "HTTP/1.1 200 OK", "no colon here", ": no name", "A:", ""])
        #expect(parser.headerFields == ["A": ""])
        #expect(parser.isComplete)
    }

    @Test(arguments: [
        ("12", Int64?.some(12)), ("12, 12", 12), ("12, 13", nil), ("-1", nil), ("abc", nil), ("", nil),
    ])
    func contentLength(value: String, expected: Int64?) {
        var parser = ResponseHeadParser()
        feed(&parser, ["HTTP/1.1 200 OK", "Content-Length: \(value)", ""])
        #expect(parser.contentLength == expected)
    }

    @Test(arguments: [("gzip", true), ("br", true), ("identity", false), (" Identity ", false), ("", false)])
    func contentEncoding(value: String, encoded: Bool) {
        var parser = ResponseHeadParser()
        feed(&parser, ["HTTP/1.1 200 OK", "Content-Encoding: \(value)", ""])
        #expect(parser.isContentEncoded == encoded)
    }

    @Test func aMalformedStatusCodeIsZero() {
        var parser = ResponseHeadParser()
        feed(&parser, ["HTTP/1.1 OK", ""])
        #expect(parser.statusCode == 0)
    }

    // Found by fuzzing (Fuzz/PictorFuzz, target http-head): the parser against a plain model
    // of its documented rules.

    /// Feeds raw `lines` (CRLF added), which need not be UTF-8.
    func feedBytes(_ parser: inout ResponseHeadParser, _ lines: [[UInt8]]) {
        for line in lines { _ = (line + [0x0D, 0x0A]).withUnsafeBytes { parser.consume($0) } }
    }

    /// Names that are not UTF-8 are stored repaired (U+FFFD), and two lines whose stored names
    /// are the same are one field, with a head of a few fields or of many (the dictionary).
    @Test(arguments: [0, 40])
    func namesThatAreNotUTF8AreOneFieldPerStoredName(otherFields: Int) {
        var parser = ResponseHeadParser()
        feedBytes(&parser, [Array("HTTP/1.1 200 OK".utf8)] + (0..<otherFields).map { Array("X-\($0): v".utf8) }
                  + [[0x4E, 0xFF, 0x3A, 0x20, 0x61], [0x4E, 0xFE, 0x3A, 0x20, 0x62], [0x6E, 0xFF, 0x3A, 0x20, 0x63]])
        let named = parser.fields.filter { $0.name.hasPrefix("N") || $0.name.hasPrefix("n") }
        #expect(named == [HTTPResponseHead.Field(name: "N\u{FFFD}", value: "a, b, c")])
        #expect(parser.value(for: "n\u{FFFD}") == "a, b, c")
    }

    /// A folded line continues the field its previous line wrote, also when that line added to
    /// a field seen earlier (not the last one in the list).
    @Test func aFoldedLineContinuesTheFieldItsPreviousLineWrote() {
        var parser = ResponseHeadParser()
        feed(&parser, ["HTTP/1.1 200 OK", "A: 1", "B: 2", "a: 3", "  more", ""])
        #expect(parser.headerFields == ["A": "1, 3 more", "B": "2"])
    }

    /// An empty field line adds nothing when joined with another of its name: no `", "` with
    /// nothing after it (trailing white space, which is not part of a field value and which a
    /// head written out again would lose) or before it.
    @Test func emptyValuesAddNothingWhenJoined() {
        var parser = ResponseHeadParser()
        feed(&parser, ["HTTP/1.1 200 OK", "A: 1", "a:", "B:", "b: 2", "C:", "c:", ""])
        #expect(parser.headerFields == ["A": "1", "B": "2", "C": ""])
    }

    /// CR and NUL inside a field value are replaced with spaces before the value is trimmed
    /// (RFC 9110 §5.5), so a bare CR at its end is not kept as part of it (which a head written
    /// out again would lose) and none reaches a consumer.
    @Test func carriageReturnsAndNULsInValuesAreSpaces() {
        var parser = ResponseHeadParser()
        feed(&parser, ["HTTP/1.1 200 OK", "Set-Cookie: a=1\r ", "X: one\rtwo\u{0}", "Y: 1", " \rcontinued\r", ""])
        #expect(parser.headerFields == ["Set-Cookie": "a=1", "X": "one two", "Y": "1 continued"])
    }

    /// A folded line after an empty value is the value, with no leading space (which a head
    /// written out again and read back would lose); after a line that was ignored, it is
    /// ignored too.
    @Test func aFoldedLineAfterAnEmptyValueOrAnIgnoredLine() {
        var parser = ResponseHeadParser()
        feed(&parser, ["HTTP/1.1 200 OK", "A:", " more", "B: 2", "no colon here", " lost", ""])
        #expect(parser.headerFields == ["A": "more", "B": "2"])
    }
}

extension ResponseHeadParser {
    /// The fields as one dictionary (each name appears once), for comparing with a literal.
    var headerFields: [String: String] {
        Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.value) })
    }
}
