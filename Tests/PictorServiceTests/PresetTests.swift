import Testing
@testable import PictorService

@Suite struct PresetTests {
    static let config = """
        # imgproxy's presets file format: name=option/option
        default=q:75/sm:0

          thumb = rs:fill:200:200/g:sm
        sharp=preset:thumb/q:90
        webp=f:webp
        loop=pr:loop2/w:1
        loop2=pr:loop/h:2
        """

    @Test func tableReadsNamesCommentsAndSpaces() throws {
        let table = try PresetTable(parsing: Self.config)
        #expect(table.names == ["default", "loop", "loop2", "sharp", "thumb", "webp"])
        #expect(table.contains("thumb") && !table.contains("# imgproxy's presets file format: name"))
        #expect(try PresetTable(definitions: ["a=w:1", " b=h:2 "]).names == ["a", "b"])
        #expect(try PresetTable(parsing: "a=w:1\r\nb=h:2\r\n").names == ["a", "b"])
    }

    @Test func defaultPresetComesFirstThenThePath() throws {
        let parser = try Fixture.unsigned(presets: Self.config)
        let url = try parser.parse("/_/pr:thumb/sm:1/plain/http://a.example/x.jpg")
        #expect(url.options == Fixture.options {
            $0.quality = 75; $0.resizingType = .fill; $0.width = 200; $0.height = 200; $0.gravity = Gravity(.smart)
        })
        #expect(url.presets == ["default", "thumb"])
        #expect(try parser.parse("/_/plain/http://a.example/x.jpg").options == Fixture.options { $0.quality = 75; $0.stripMetadata = false })
    }

    @Test func presetsNestAndApplyInPlace() throws {
        let parser = try Fixture.unsigned(presets: Self.config)
        // q:10 before the preset is overridden by it; w:50 after it overrides the preset.
        let url = try parser.parse("/_/q:10/preset:sharp:webp/w:50/plain/http://a.example/x.jpg")
        #expect(url.options == Fixture.options {
            $0.quality = 90; $0.stripMetadata = false; $0.resizingType = .fill; $0.width = 50; $0.height = 200
            $0.gravity = Gravity(.smart); $0.format = .webp
        })
        #expect(url.presets == ["default", "sharp", "thumb", "webp"])
    }

    @Test func recursivePresetsAreSkippedAsImgproxySkipsThem() throws {
        let parser = try Fixture.unsigned(presets: Self.config)
        let url = try parser.parse("/_/pr:loop/plain/http://a.example/x.jpg")
        #expect(url.options.width == 1 && url.options.height == 2)
        #expect(url.presets == ["default", "loop", "loop2"])
    }

    @Test func onlyPresetsModeReadsPresetNamesFromThePath() throws {
        let parser = try Fixture.unsigned(presets: Self.config, onlyPresets: true)
        let url = try parser.parse("/_/thumb:webp/plain/http://a.example/x.jpg@png")
        #expect(url.options == Fixture.options {
            $0.quality = 75; $0.stripMetadata = false; $0.resizingType = .fill; $0.width = 200; $0.height = 200
            $0.gravity = Gravity(.smart); $0.format = .png
        })
        #expect(url.presets == ["default", "thumb", "webp"])
        #expect(try parser.parse("/_/thumb/\(Fixture.curiositySplit)").source.url == Fixture.curiosity)
        // An option in the path is a preset name that does not exist.
        #expect(parser.refusal("/_/w:10/plain/http://a.example/x.jpg") == ServiceError(.unknownPreset, reason: "unknown preset 'w'"))
        #expect(parser.refusal("/_/plain/http://a.example/x.jpg") == ServiceError(.unknownPreset, reason: "unknown preset 'plain'"))
    }

    @Test func samePresetAndSpelledOutOptionsGiveTheSameCanonicalString() throws {
        let parser = try Fixture.unsigned(presets: "thumb=rs:fill:200:200/g:sm")
        let viaPreset = try parser.parse("/_/pr:thumb/plain/http://a.example/x.jpg")
        let spelled = try parser.parse("/_/resizing_type:fill/size:200:200/gravity:sm/plain/http://a.example/x.jpg")
        #expect(viaPreset.options.canonicalString == spelled.options.canonicalString)
    }

    @Test(arguments: [
        ("thumb", "presets line 1: expected name=option/option, got thumb"),
        ("a=b=c", "presets line 1: expected name=option/option, got a=b=c"),
        ("# x\n=w:1", "presets line 2: empty preset name"),
        ("a=", "presets line 1: preset 'a' has no options"),
        ("a=w:1/plain", "presets line 1: 'plain' in preset 'a' is not an option (option:arguments)"),
        ("a=w:1\na=h:1", "presets line 2: preset 'a' is defined twice"),
    ])
    func malformedTextIsAConfigurationError(text: String, message: String) {
        #expect(throws: ServiceConfigurationError.self) { try PresetTable(parsing: text) }
        do { _ = try PresetTable(parsing: text) } catch { #expect(error.description == message) }
    }

    @Test(arguments: [
        ("a=w:-1", "preset 'a': invalid argument '-1' for option 'w' (expected an integer 0...16384)"),
        ("a=crop:1:1", "preset 'a': unknown option 'crop'"),
        ("a=pr:b", "preset 'a': unknown preset 'b'"),
    ])
    func badPresetOptionsFailWhenTheParserIsMade(text: String, message: String) throws {
        let table = try PresetTable(parsing: text)
        do {
            _ = try ProcessingURLParser(signature: .disabled, presets: table)
            Issue.record("expected a configuration error")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func presetsThatMultiplyAreBounded() throws {
        // Each level names the next four times: 4^6 options if expanded.
        let levels = (0..<6).map { "p\($0)=pr:\(Array(repeating: "p\($0 + 1)", count: 4).joined(separator: ":"))" }
        let table = try PresetTable(definitions: levels + ["p6=w:1"])
        do {
            _ = try ProcessingURLParser(signature: .disabled, presets: table)
            Issue.record("expected a configuration error")
        } catch {
            #expect(error.message == "presets expand to more than 256 options")
        }
        // With a higher limit the table loads, and a request still cannot exceed it.
        let parser = try ProcessingURLParser(
            signature: .disabled, presets: try PresetTable(definitions: Array(levels[2...]) + ["p6=w:1"]),
            limits: ServiceLimits(maxAppliedOptions: 400))
        #expect(try parser.parse("/_/pr:p2/plain/http://a.example/x.jpg").options.width == 1)
        #expect(parser.refusal("/_/pr:p2/pr:p2/plain/http://a.example/x.jpg")
            == ServiceError(.tooManyOptions, reason: "presets expand to more than 400 options"))
    }
}
