import Foundation
import PictorTestSupport
import Testing
@testable import PictorCLI

/// The CLI prints numbers with its own fixed-point formatter instead of `String(format:)`; it
/// must print what `%.Nf` prints wherever `%.Nf` is not on a rounding tie.
@Suite struct FormattingTests {
    @Test(arguments: [0, 1, 2, 3])
    func fixedMatchesPrintfAwayFromTies(digits: Int) {
        var generator = SplitMix64(seed: 0xF0F0 + UInt64(digits))
        // 701891.8195 and -423090.3515 are just below a tie, but their product by 1,000 rounds
        // onto it (…819.5 exactly): printf rounds the value itself, down.
        var values: [Double] = [0, 1, 9.99, 10, 0.04, 123_456.789, 1e-7, 4068.1, 99.95001, -3.25001, 701891.8195, -423090.3515]
        for _ in 0..<2_000 {
            values.append(Double.random(in: -1e6...1e6, using: &generator))
            values.append(Double.random(in: 0...2, using: &generator))
        }
        for value in values {
            var expected = String(format: "%.\(digits)f", value)
            // A negative value that rounds to zero prints as "-0" in printf and as "0" here, on
            // purpose (`fixedSpecialValues`); the random values hit one now and then.
            if expected.hasPrefix("-"), expected.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) { expected.removeFirst() }
            // An exact tie (the value itself is …5 at the cut, as 0.5 is) rounds away from zero
            // here and to even in printf, on purpose (`fixedSpecialValues`).
            let scale = [1.0, 10, 100, 1000][digits], product = abs(value) * scale
            if product - product.rounded(.down) == 0.5, fma(abs(value), scale, -product) == 0 { continue }
            #expect(Formatting.fixed(value, digits: digits) == expected, "\(value) with \(digits) digits")
        }
    }

    @Test func fixedSpecialValues() {
        #expect(Formatting.fixed(0.5, digits: 0) == "1")
        #expect(Formatting.fixed(-0.0001, digits: 1) == "0.0")
        #expect(Formatting.fixed(.infinity, digits: 1) == "inf")
        #expect(Formatting.fixed(.nan, digits: 1) == "nan")
        #expect(Formatting.bytes(1536) == "1.5 KiB")
        #expect(Formatting.bytes(512) == "512 B")
        #expect(Formatting.milliseconds(0.0123) == "12.3 ms")
    }
}
