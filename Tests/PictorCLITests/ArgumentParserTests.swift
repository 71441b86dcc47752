import Foundation
import Pictor
import Testing
@testable import PictorCLI

@Suite struct ArgumentParserTests {
    @Test func optionsFlagsAndPositionalsInAnyOrder() throws {
        var p = ArgumentParser(["a", "--resize", "256", "-o", "out", "--no-cache", "b", "--format=webp"],
                               declared: CLICommandOptions.fetch.options)
        let noCache = p.flag(.noCache)
        let resize = try p.option(.resize)
        let output = try p.option(.fetchOutput)
        let format = try p.option(.format)
        let rest = try p.positionals()
        #expect(noCache)
        #expect(resize == "256")
        #expect(output == "out")
        #expect(format == "webp")
        #expect(rest == ["a", "b"])
    }

    @Test func unknownOptionIsNamed() {
        var p = ArgumentParser(["--bogus", "x"], declared: CLICommandOptions.fetch.options)
        #expect(throws: CLIError.usage("unknown option '--bogus'")) { try p.positionals() }
    }

    @Test func missingValueIsNamed() {
        var p = ArgumentParser(["x", "--resize"], declared: CLICommandOptions.fetch.options)
        #expect(throws: CLIError.usage("missing value for '--resize'")) { try p.option(.resize) }
    }

    @Test(arguments: [(CLIOption.sizeLimit, "--size-limit", "-1"), (.maxAge, "--max-age", "-5m"), (.resize, "--resize", "-5"),
                      (.name, "--name", "-{stem}.{ext}"), (.fetchOutput, "-o", "-")])
    func aValueMayStartWithADashWhenItIsNotAnOption(option: CLIOption, spelling: String, value: String) throws {
        var p = ArgumentParser(["x", spelling, value], declared: CLICommandOptions.fetch.options)
        #expect(try p.option(option) == value)
        #expect(try p.positionals() == ["x"])
    }

    @Test(arguments: ["--cache-dir", "-q", "--json", "-H", "--header=X: y", "--bogus", "--no-such-option=1"])
    func anOptionOrWhatLooksLikeALongOptionIsNeverAValue(_ next: String) {
        var p = ArgumentParser(["--name", next], declared: CLICommandOptions.fetch.options)
        #expect(throws: CLIError.usage("missing value for '--name'")) { try p.option(.name) }
    }

    @Test func everyOptionTheHelpTextsNameIsKnownToTheParser() async {
        // The OPTIONS sections are made from the declarations; this reads the hand-written rest
        // (usage lines, descriptions, examples), which must not name an option pictor lacks.
        var texts = [PictorCommand.usage, FetchCommand.help, PrefetchCommand.help, CacheCommand.help]
        texts += CacheCommand.subcommands.compactMap { CacheCommand.help(for: $0) }
        var names: Set<String> = []
        for text in texts {
            for token in text.split(whereSeparator: { " ,[]()|'\n".contains($0) }) {
                let word = token.split(separator: "=").first.map(String.init) ?? ""
                if word.range(of: #"^--?[a-zA-Z][a-zA-Z-]*$"#, options: .regularExpression) != nil { names.insert(word) }
            }
        }
        #expect(names.contains("--size-limit") && names.contains("-H"), "\(names.sorted())")
        #expect(names.subtracting(ArgumentParser.knownOptions).isEmpty, "\(names.subtracting(ArgumentParser.knownOptions).sorted())")
    }

    @Test func doubleDashEndsOptions() throws {
        var p = ArgumentParser(["--", "-not-an-option"], declared: [])
        let rest = try p.positionals()
        #expect(rest == ["-not-an-option"])
    }

    @Test func integerRangeIsChecked() {
        var p = ArgumentParser(["--concurrency", "0"], declared: CLICommandOptions.prefetch.options)
        #expect(throws: CLIError.usage("invalid value '0' for '--concurrency': expected an integer in 1...256")) {
            try p.intOption(.concurrency)
        }
    }

    @Test func resizeParsesWidthOrBox() throws {
        #expect(try ResizeOption.parse("256")?.width == 256)
        #expect(try ResizeOption.parse("256x128")?.height == 128)
        #expect(throws: CLIError.self) { try ResizeOption.parse("0") }
        #expect(throws: CLIError.self) { try ResizeOption.parse("abc") }
        #expect(throws: CLIError.self) { try ResizeOption.parse("x") }
        #expect(throws: CLIError.self) { try ResizeOption.parse("10x20x30") }
    }

    /// `xH` leaves the width open for any image, including one wider than 65,535 pixels: it is
    /// scaled by its height alone, and one already low enough is left as it is.
    @Test func anOpenWidthDoesNotSqueezeAVeryWideImage() throws {
        let width = 70_000
        let pixels = Data((0..<(width * 4)).map { UInt8(truncatingIfNeeded: $0 / 7) })
        let png = try VipsEncoder().encode(Image(width: width, height: 4, layout: .gray, pixels: pixels), as: .png)
        for (text, expected) in [("x2", (35_000, 2)), ("x8", (width, 4)), ("x4", (width, 4))] {
            let option = try #require(try ResizeOption.parse(text))
            let image = try ImageDecoderRegistry.vips.decode(png, options: ImageDecodingOptions(thumbnail: option.processor.options))
            #expect(image.width == expected.0 && image.height == expected.1, "\(text): \(image.width)×\(image.height)")
        }
    }

    @Test func resizeTakesTheGrammarOfVipsthumbnailAndImageMagick() throws {
        #expect(try ResizeOption.parse("256") == ResizeOption(width: 256, height: 256))
        #expect(try ResizeOption.parse("256x") == ResizeOption(width: 256, height: nil))
        #expect(try ResizeOption.parse("x128") == ResizeOption(width: nil, height: 128))
        #expect(try ResizeOption.parse("256X128") == ResizeOption(width: 256, height: 128))
        #expect(try ResizeOption.parse("x128")?.processor.options.height == 128)
        #expect(try ResizeOption.parse("256x")?.processor.options.height == nil)
        #expect(try ResizeOption.parse("200x100", fit: "cover")?.processor.options.contentMode == .aspectFill)
        #expect(try ResizeOption.parse("200x100", fit: "fill")?.processor.options.contentMode == .stretch)
        #expect(throws: CLIError.self) { try ResizeOption.parse("200x100", fit: "contain") }
        #expect(throws: CLIError.self) { try ResizeOption.parse("x100", fit: "cover") }
        #expect(throws: CLIError.self) { try ResizeOption.parse(nil, fit: "cover") }
    }

    @Test func byteSizesUsePowersOf1024() throws {
        #expect(try Formatting.parseBytes("500M", option: "--size-limit") == 500 << 20)
        #expect(try Formatting.parseBytes("2GiB", option: "--size-limit") == 2 << 30)
        #expect(try Formatting.parseBytes("123", option: "--size-limit") == 123)
        #expect(throws: CLIError.self) { try Formatting.parseBytes("-1", option: "--size-limit") }
    }

    /// Swift's `Double(_:)` also reads hexadecimal (`0x10` is 16) and spelled-out values: a
    /// size or a duration is decimal digits only.
    @Test func sizesAndDurationsAreDecimalOnly() throws {
        for text in ["0x10", "0x1p4", "0X10M", "nan", "infinity", "1_000", " 5", "5 ", "1.2.3", ".", ""] {
            #expect(throws: CLIError.self, "\(text)") { try Formatting.parseBytes(text, option: "--size-limit") }
            #expect(throws: CLIError.self, "\(text)") { try Formatting.parseDuration(text, option: "--max-age") }
        }
        #expect(try Formatting.parseBytes("1.5K", option: "--size-limit") == 1536)
        #expect(try Formatting.parseDuration("1.5h", option: "--max-age") == 5400)
    }

    @Test func outputFormatResolution() throws {
        #expect(try OutputFormatOption.parse("jpg") == .jpeg)
        #expect(try OutputFormatOption.parse("gif") == .gif)
        #expect(throws: CLIError.self) { try OutputFormatOption.parse("tiff") }
        #expect(OutputFormatOption.resolve(explicit: nil, path: "a.webp", source: .jpeg) == .webp)
        #expect(OutputFormatOption.resolve(explicit: nil, path: nil, source: .tiff) == .png)
        #expect(OutputFormatOption.resolve(explicit: nil, path: nil, source: .gif) == .gif)
        #expect(OutputFormatOption.resolve(explicit: nil, path: nil, source: .jpeg) == .jpeg)
    }
}

@Suite struct CacheLimitOptionTests {
    @Test func sizesTakeDecimalsAndDurationsTakeUnits() throws {
        #expect(try Formatting.parseBytes("1.5GiB", option: "--size-limit") == 1_610_612_736)
        #expect(try Formatting.parseBytes("500M", option: "--size-limit") == 500 << 20)
        #expect(throws: CLIError.self) { try Formatting.parseBytes("1e9", option: "--size-limit") }
        #expect(throws: CLIError.self) { try Formatting.parseBytes("-1G", option: "--size-limit") }
        #expect(try Formatting.parseDuration("7d", option: "--max-age") == 604_800)
        #expect(try Formatting.parseDuration("12h", option: "--max-age") == 43_200)
        #expect(try Formatting.parseDuration("90m", option: "--max-age") == 5_400)
        #expect(try Formatting.parseDuration("3600", option: "--max-age") == 3_600)
        #expect(try Formatting.parseDuration("1.5w", option: "--max-age") == 907_200)
        #expect(throws: CLIError.self) { try Formatting.parseDuration("0", option: "--max-age") }
        #expect(throws: CLIError.self) { try Formatting.parseDuration("soon", option: "--max-age") }
    }
}

/// A value that starts with '-' reaches the option's own check, which names it.
extension PictorCommandRegressionTests {
    @Test(arguments: [
        (["cache", "trim", "--size-limit", "-1", "--cache-dir", "/tmp/pictor-none"], "invalid value '-1' for '--size-limit'"),
        (["fetch", "http://127.0.0.1:9/a.png", "--no-cache", "--max-age", "-5m"], "invalid value '-5m' for '--max-age'"),
        (["fetch", "http://127.0.0.1:9/a.png", "--no-cache", "--resize", "-5"], "invalid value '-5' for '--resize'"),
        (["prefetch", "http://127.0.0.1:9/a.png", "--no-cache", "--concurrency", "-2"], "invalid value '-2' for '--concurrency'"),
    ])
    func aNegativeValueGetsTheOptionsOwnError(arguments: [String], message: String) async {
        let (code, console) = await run(arguments)
        #expect(code == 64)
        #expect(console.errors.contains(message), "\(console.errors)")
        #expect(!console.errors.contains("missing value"), "\(console.errors)")
    }
}
