import Testing
@testable import PictorService

/// Hostile paths are refused early, and cost time linear in their (bounded) length.
@Suite struct LimitTests {
    @Test func overlongPathIs414BeforeAnythingElse() throws {
        let parser = try Fixture.signed()
        let path = "/bad/" + String(repeating: "w:1/", count: 3000) + "plain/http://a.example/x.jpg"
        let error = parser.refusal(path)
        #expect(error == ServiceError(.pathTooLong, reason: "the path is longer than 8192 bytes"))
        #expect(error?.status == 414)
        let small = try Fixture.unsigned(limits: ServiceLimits(maxPathLength: 40))
        #expect(small.refusal("/_/plain/http://a.example/" + String(repeating: "a", count: 20))?.kind == .pathTooLong)
        #expect(throws: Never.self) { try small.parse("/_/plain/http://a.example/x.jpg") }
    }

    @Test func tooManyOptionsIs400() throws {
        let parser = try Fixture.unsigned()
        let ok = String(repeating: "w:1/", count: 32)
        #expect(throws: Never.self) { try parser.parse("/_/\(ok)plain/http://a.example/x.jpg") }
        let error = parser.refusal("/_/\(ok)h:1/plain/http://a.example/x.jpg")
        #expect(error == ServiceError(.tooManyOptions, reason: "more than 32 options in the path"))
        #expect(error?.status == 400)
    }

    @Test func tooManyArgumentsStopsSplitting() throws {
        let parser = try Fixture.unsigned()
        let colons = String(repeating: ":", count: 7000)
        let error = parser.refusal("/_/rs\(colons)/plain/http://a.example/x.jpg")
        #expect(error == ServiceError(.invalidArgument, reason: "too many arguments for option 'rs' (at most 16)"))
        let presetOnly = try Fixture.unsigned(presets: "a=w:1", onlyPresets: true)
        #expect(presetOnly.refusal("/_/a\(colons)/plain/http://a.example/x.jpg")?.kind == .tooManyOptions)
    }

    @Test func hugeNumbersAreRefusedWithoutConverting() throws {
        let parser = try Fixture.unsigned()
        let digits = String(repeating: "9", count: 4000)
        #expect(parser.refusal("/_/w:\(digits)/plain/http://a.example/x.jpg")?.reason
            == "invalid argument '\(String(repeating: "9", count: 32))...' for option 'w' (expected an integer 0...16384)")
        #expect(parser.refusal("/_/dpr:1.\(digits)/plain/http://a.example/x.jpg")?.kind == .invalidArgument)
    }

    @Test func limitsAreConfigurable() throws {
        let parser = try Fixture.unsigned(limits: ServiceLimits(maxOptions: 2, maxDimension: 100, maxDPR: 3))
        #expect(try parser.options("w:100/dpr:3") == Fixture.options { $0.width = 100; $0.dpr = 3 })
        #expect(parser.refusal("/_/w:101/plain/http://a.example/x.jpg")?.reason == "invalid argument '101' for option 'w' (expected an integer 0...100)")
        #expect(parser.refusal("/_/dpr:3.5/plain/http://a.example/x.jpg")?.reason == "invalid argument '3.5' for option 'dpr' (expected a number above 0, at most 3)")
        #expect(parser.refusal("/_/w:1/h:1/q:1/plain/http://a.example/x.jpg")?.kind == .tooManyOptions)
    }

    @Test func maximalHostilePathsParseQuickly() throws {
        let parser = try Fixture.unsigned()
        let budget = 8192 - 40
        let hostile = [
            "/_/plain/" + String(repeating: "%41", count: budget / 3),
            "/_/" + String(repeating: "QUFB/", count: budget / 5) + "QUFB",
            "/_/" + String(repeating: "/", count: budget),
            "/_/plain/" + String(repeating: "@", count: budget),
            "/_/" + String(repeating: ".", count: budget),
            "/_/cb:" + String(repeating: "x", count: budget) + "/plain/http://a.example/x.jpg",
        ]
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for path in hostile { _ = parser.refusal(path) }
        }
        #expect(elapsed < .seconds(1))
    }
}
