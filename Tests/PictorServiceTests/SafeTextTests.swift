import Testing
import PictorService

@Suite struct SafeTextTests {
    @Test func keepsPlainTextAndEscapesTheRest() {
        #expect(SafeText.quote("rs") == "'rs'")
        #expect(SafeText.quote("fill-down_1.5~+,=") == "'fill-down_1.5~+,='")
        #expect(SafeText.quote("a b\r\n<'\"%") == "'a%20b%0D%0A%3C%27%22%25'")
        #expect(SafeText.quote("é") == "'%C3%A9'")
    }

    @Test func cutsLongText() {
        #expect(SafeText.quote(String(repeating: "a", count: 33)) == "'\(String(repeating: "a", count: 32))...'")
        #expect(SafeText.quote(String(repeating: "a", count: 32)) == "'\(String(repeating: "a", count: 32))'")
        // An escape is never cut in half.
        #expect(SafeText.quote(String(repeating: "a", count: 30) + "<") == "'\(String(repeating: "a", count: 30))...'")
    }

    @Test func outputIsOneLineOfPrintableASCII() {
        let hostile = "\u{0}\u{7f}\u{2028}\r\n\t日本 %0D%0A"
        let quoted = SafeText.quote(hostile)
        #expect(quoted.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7f })
    }
}
