import Testing
@testable import PictorService

@Suite struct CanonicalOptionsTests {
    let parser: ProcessingURLParser

    init() throws {
        parser = try Fixture.unsigned()
    }

    @Test func defaultsSpelledOut() {
        #expect(ProcessingOptions().canonicalString == "rs:fit:0:0:0:0:ce:0:0/g:ce:0:0/dpr:1/q:0/bg:/sm:1/cb:")
    }

    @Test func everyFieldHasItsPlace() throws {
        let o = try parser.options("rs:fill-down:512:256:1:1:fp:0.5:0.25/g:noea:10:-2.5/dpr:1.5/q:80/bg:f80/sm:0/cb:v7/f:jpg")
        #expect(o.canonicalString == "rs:fill-down:512:256:1:1:fp:0.5:0.25/g:noea:10:-2.5/dpr:1.5/q:80/bg:ff8800/sm:0/cb:v7/f:jpeg")
        #expect(try parser.options("g:sm").canonicalString.contains("/g:sm/dpr:"))
    }

    @Test(arguments: [
        ["rs:fit:512:512/q:80/f:webp",
         "resize:fit:512:512/quality:80/format:webp",
         "w:512/h:512/q:80/ext:webp",
         "f:png/q:80/s:512:512/f:webp",
         "rt:fit/size:512:512:false:f/g:ce:0:0/dpr:1.0/q:80/bg:/sm:t/cb:/f:webp",
         "size:512:512/quality:080/strip_metadata:TRUE/dpr:1e0/enlarge:0/format:webp"],
        ["rs:fill:100:100:1/bg:255:255:255/cb:2", "rt:fill/w:100/h:100/el:True/bg:FFF/cachebuster:2", "bg:ffffff/cb:2/s:100:100:1/rt:fill"],
    ])
    func spellingsOfOneRequestAgree(spellings: [String]) throws {
        let strings = try Set(spellings.map { try parser.options($0).canonicalString })
        #expect(strings.count == 1, "\(strings)")
    }

    @Test func extensionAndFormatOptionAgree() throws {
        let viaExtension = try parser.parse("/_/w:10/plain/http://a.example/x@jpg").options
        let viaOption = try parser.options("w:10/f:jpeg")
        #expect(viaExtension.canonicalString == viaOption.canonicalString)
    }

    @Test(arguments: [
        ("w:1", "w:2"), ("q:80", "q:81"), ("cb:1", "cb:2"), ("cb:1", ""), ("sm:0", "sm:1"), ("f:webp", "f:avif"),
        ("f:webp", ""), ("bg:fff", ""), ("g:sm", "g:ce"), ("ex:1", "ex:0"), ("dpr:2", "dpr:2.5"),
        ("rt:fill", "rt:fill-down"), ("g:ce:0.5:0", "g:ce:0:0.5"), ("el:1", "el:0"),
    ])
    func differentRequestsDiffer(a: String, b: String) throws {
        let lhs = try a.isEmpty ? ProcessingOptions() : parser.options(a)
        let rhs = try b.isEmpty ? ProcessingOptions() : parser.options(b)
        #expect(lhs.canonicalString != rhs.canonicalString)
    }

    @Test(arguments: [
        "", "rs:auto:1:2:1:1:sowe:3:4/g:fp:0.1:0.9/dpr:0.75/q:1/bg:010203/sm:0/cb:x-y_z.1/f:avif",
        "g:no:1e-05:123456789/dpr:3", "g:sm/f:svg/cb:%2F",
    ])
    func canonicalStringParsesBackToEqualOptions(options: String) throws {
        let original = try options.isEmpty ? ProcessingOptions() : parser.options(options)
        let reparsed = try parser.options(original.canonicalString)
        #expect(reparsed == original)
        #expect(reparsed.canonicalString == original.canonicalString)
    }

    @Test func presetNamesAreNotPartOfIt() throws {
        let parser = try Fixture.unsigned(presets: "a=w:10\nb=w:10")
        #expect(try parser.options("pr:a").canonicalString == parser.options("pr:b").canonicalString)
    }

    @Test func numbersHaveOneSpelling() {
        #expect(NumberText.format(2) == "2")
        #expect(NumberText.format(-0.0) == "0")
        #expect(NumberText.format(1.5) == "1.5")
        #expect(NumberText.format(0.00001) == "1e-05")
        #expect(NumberText.format(1e20) == "1e+20")
    }
}
