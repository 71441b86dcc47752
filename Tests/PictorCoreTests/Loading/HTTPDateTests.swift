import Foundation
@testable import PictorCore
import Testing

/// HTTP dates parsed by hand, checked against the three forms of RFC 9110 §5.6.7.
@Suite struct HTTPDateTests {
    static let reference = Date(timeIntervalSince1970: 784_111_777)   // Sun, 06 Nov 1994 08:49:37 GMT

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "sun, 06 nov 1994 08:49:37 gmt",
        "  Sun, 06 Nov 1994 08:49:37 GMT  ",
        "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 UTC",
    ])
    func theThreeFormsParse(text: String) {
        #expect(HTTPDate.parse(text) == Self.reference)
    }

    @Test(arguments: ["", "0", "-1", "yesterday", "Sun, 06 Nov 1994", "Sun, 32 Nov 1994 08:49:37 GMT",
                      "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 PST",
                      "Sun, 06 Nov 19945 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT trailing", "Sun, 06 Nov 94 08:49:37 GMT"])
    func invalidDatesAreNil(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func formattingRoundTripsAcrossEras() {
        #expect(HTTPDate.format(Self.reference) == "Sun, 06 Nov 1994 08:49:37 GMT")
        for seconds in stride(from: -2_208_988_800.0, through: 4_102_444_800, by: 86_400 * 97 + 3_671) {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
        }
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 GMT")
    }

    @Test func agreesWithDateFormatter() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        for seconds in stride(from: 0.0, through: 2_000_000_000, by: 12_345_677) {
            let text = formatter.string(from: Date(timeIntervalSince1970: seconds))
            #expect(HTTPDate.parse(text) == formatter.date(from: text))
        }
    }

    /// IMF-fixdate has a four-digit year: years before 1000 are zero-padded, so what is
    /// formatted parses back (found by fuzzing, target http-date).
    @Test func yearsBeforeAThousandKeepFourDigits() throws {
        let date = try #require(HTTPDate.parse("Fri, 05 Oct 0964 02:32:51 GMT"))
        #expect(HTTPDate.format(date) == "Fri, 05 Oct 0964 02:32:51 GMT")
        #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -62_135_596_800)) == "Mon, 01 Jan 0001 00:00:00 GMT")
    }
}
