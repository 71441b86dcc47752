import PictorCore
import Testing
@testable import PictorService

/// Every option under each of its names, with imgproxy's argument order and defaults.
@Suite struct OptionTests {
    let parser: ProcessingURLParser

    init() throws {
        parser = try Fixture.unsigned()
    }

    static let cases: [(String, ProcessingOptions)] = [
        // resize / rs: type, width, height, enlarge, extend, extend gravity and offsets.
        ("resize:fill:300:400", Fixture.options { $0.resizingType = .fill; $0.width = 300; $0.height = 400 }),
        ("rs:fill-down:300:400:1", Fixture.options { $0.resizingType = .fillDown; $0.width = 300; $0.height = 400; $0.enlarge = true }),
        ("rs:force:1:2:t:true", Fixture.options { $0.resizingType = .force; $0.width = 1; $0.height = 2; $0.enlarge = true; $0.extend.enabled = true }),
        ("rs:auto:1:2:0:1:noea:5:6", Fixture.options {
            $0.resizingType = .auto; $0.width = 1; $0.height = 2
            $0.extend = Extend(enabled: true, gravity: Gravity(.northEast, xOffset: 5, yOffset: 6))
        }),
        ("rs:fit", Fixture.options()),
        ("rs::100", Fixture.options { $0.width = 100 }),
        ("rs:::100", Fixture.options { $0.height = 100 }),
        ("w:7/rs:fill::9", Fixture.options { $0.resizingType = .fill; $0.width = 7; $0.height = 9 }),
        // size / s: width, height, enlarge, extend…
        ("size:10:20:1:1:so", Fixture.options {
            $0.width = 10; $0.height = 20; $0.enlarge = true; $0.extend = Extend(enabled: true, gravity: Gravity(.south))
        }),
        ("s:10", Fixture.options { $0.width = 10 }),
        ("s:::True", Fixture.options { $0.enlarge = true }),
        ("s:1:1:0::sm", Fixture.options { $0.width = 1; $0.height = 1 }),  // empty extend: gravity not read
        ("s:1:1:0:1:fp:0.25:0.75", Fixture.options {
            $0.width = 1; $0.height = 1; $0.extend = Extend(enabled: true, gravity: Gravity(.focusPoint, xOffset: 0.25, yOffset: 0.75))
        }),
        // resizing_type / rt
        ("resizing_type:fill", Fixture.options { $0.resizingType = .fill }),
        ("rt:fill-down", Fixture.options { $0.resizingType = .fillDown }),
        ("rt:force", Fixture.options { $0.resizingType = .force }),
        ("rt:auto", Fixture.options { $0.resizingType = .auto }),
        ("rt:fit", Fixture.options()),
        // width / w, height / h
        ("width:640", Fixture.options { $0.width = 640 }),
        ("w:+0640", Fixture.options { $0.width = 640 }),
        ("height:480", Fixture.options { $0.height = 480 }),
        ("h:16384", Fixture.options { $0.height = 16384 }),
        ("w:0/h:0", Fixture.options()),
        // enlarge / el, with Go's ParseBool spellings
        ("enlarge:1", Fixture.options { $0.enlarge = true }),
        ("el:t", Fixture.options { $0.enlarge = true }),
        ("el:T", Fixture.options { $0.enlarge = true }),
        ("el:TRUE", Fixture.options { $0.enlarge = true }),
        ("el:true", Fixture.options { $0.enlarge = true }),
        ("el:1/el:0", Fixture.options()),
        ("el:1/el:f", Fixture.options()),
        ("el:1/el:False", Fixture.options()),
        // extend / ex
        ("extend:1", Fixture.options { $0.extend.enabled = true }),
        ("ex:1:sowe:3:-4.5", Fixture.options { $0.extend = Extend(enabled: true, gravity: Gravity(.southWest, xOffset: 3, yOffset: -4.5)) }),
        // gravity / g: every type; offsets kept when left out, as imgproxy keeps them
        ("gravity:no", Fixture.options { $0.gravity = Gravity(.north) }),
        ("g:so", Fixture.options { $0.gravity = Gravity(.south) }),
        ("g:ea", Fixture.options { $0.gravity = Gravity(.east) }),
        ("g:we", Fixture.options { $0.gravity = Gravity(.west) }),
        ("g:noea", Fixture.options { $0.gravity = Gravity(.northEast) }),
        ("g:nowe", Fixture.options { $0.gravity = Gravity(.northWest) }),
        ("g:soea", Fixture.options { $0.gravity = Gravity(.southEast) }),
        ("g:sowe", Fixture.options { $0.gravity = Gravity(.southWest) }),
        ("g:ce:10:0.5", Fixture.options { $0.gravity = Gravity(.center, xOffset: 10, yOffset: 0.5) }),
        ("g:ce:10:20/g:no", Fixture.options { $0.gravity = Gravity(.north, xOffset: 10, yOffset: 20) }),
        ("g:ce:10:20/g:no::5", Fixture.options { $0.gravity = Gravity(.north, xOffset: 10, yOffset: 5) }),
        ("g:sm", Fixture.options { $0.gravity = Gravity(.smart) }),
        ("g:ce:10:20/g:sm", Fixture.options { $0.gravity = Gravity(.smart) }),
        ("g:fp:0:1", Fixture.options { $0.gravity = Gravity(.focusPoint, xOffset: 0, yOffset: 1) }),
        // dpr
        ("dpr:2", Fixture.options { $0.dpr = 2 }),
        ("dpr:1.5", Fixture.options { $0.dpr = 1.5 }),
        ("dpr:.5", Fixture.options { $0.dpr = 0.5 }),
        ("dpr:8", Fixture.options { $0.dpr = 8 }),
        // quality / q (0 = the service's default)
        ("quality:80", Fixture.options { $0.quality = 80 }),
        ("q:1", Fixture.options { $0.quality = 1 }),
        ("q:100", Fixture.options { $0.quality = 100 }),
        ("q:50/q:0", Fixture.options()),
        // format / f / ext
        ("format:webp", Fixture.options { $0.format = .webp }),
        ("f:jpg", Fixture.options { $0.format = .jpeg }),
        ("f:jpeg", Fixture.options { $0.format = .jpeg }),
        ("ext:avif", Fixture.options { $0.format = .avif }),
        ("f:png", Fixture.options { $0.format = .png }),
        ("f:gif", Fixture.options { $0.format = .gif }),
        ("f:heic", Fixture.options { $0.format = .heic }),
        ("f:jxl", Fixture.options { $0.format = .jxl }),
        ("f:tiff", Fixture.options { $0.format = .tiff }),
        ("f:bmp", Fixture.options { $0.format = .bmp }),
        ("f:ico", Fixture.options { $0.format = .ico }),
        ("f:svg", Fixture.options { $0.format = .svg }),
        // background / bg: R:G:B, hex (3 or 6 digits), or empty to unset
        ("background:255:128:0", Fixture.options { $0.background = RGBColor(red: 255, green: 128, blue: 0) }),
        ("bg:ff8000", Fixture.options { $0.background = RGBColor(red: 255, green: 128, blue: 0) }),
        ("bg:FfF", Fixture.options { $0.background = RGBColor(red: 255, green: 255, blue: 255) }),
        ("bg:000:0:00", Fixture.options { $0.background = RGBColor(red: 0, green: 0, blue: 0) }),
        ("bg:fff/bg:", Fixture.options()),
        // strip_metadata / sm (on by default): `sm` is this option's name, and a gravity value
        ("strip_metadata:0", Fixture.options { $0.stripMetadata = false }),
        ("sm:false", Fixture.options { $0.stripMetadata = false }),
        ("sm:0/sm:1", Fixture.options()),
        ("sm:f/g:sm", Fixture.options { $0.stripMetadata = false; $0.gravity = Gravity(.smart) }),
        // cachebuster / cb
        ("cachebuster:v2", Fixture.options { $0.cacheBuster = "v2" }),
        ("cb:2024-01-01T00.00", Fixture.options { $0.cacheBuster = "2024-01-01T00.00" }),
        ("cb:v1/cb:", Fixture.options()),
    ]

    @Test(arguments: cases)
    func option(path: String, expected: ProcessingOptions) throws {
        #expect(try parser.options(path) == expected)
    }

    @Test func defaultsAreImgproxys() {
        let o = ProcessingOptions()
        #expect(o.resizingType == .fit && o.width == 0 && o.height == 0 && !o.enlarge)
        #expect(o.extend == Extend(enabled: false, gravity: Gravity(.center, xOffset: 0, yOffset: 0)))
        #expect(o.gravity == Gravity(.center) && o.dpr == 1 && o.quality == 0)
        #expect(o.format == nil && o.background == nil && o.stripMetadata && o.cacheBuster == nil)
    }

    @Test func laterOptionsOverrideEarlierOnes() throws {
        let o = try parser.options("rs:fill:100:100/w:50/rt:fit/q:10/quality:90")
        #expect(o == Fixture.options { $0.width = 50; $0.height = 100; $0.quality = 90 })
    }
}
