import Testing
@testable import PictorService

/// Every malformed option is a 400 whose reason names the option as written and the argument.
@Suite struct OptionRefusalTests {
    let parser: ProcessingURLParser

    init() throws {
        parser = try Fixture.unsigned()
    }

    static let cases: [(String, ServiceError.Kind, String)] = [
        ("crop:10:10", .unknownOption, "unknown option 'crop'"),
        ("Width:10", .unknownOption, "unknown option 'Width'"),
        (":10", .unknownOption, "unknown option ''"),
        ("rs:stretch:1:1", .invalidArgument, "invalid argument 'stretch' for option 'rs' (expected fit, fill, fill-down, force, auto)"),
        ("rs:fit:1:1:1:1:ce:0:0:9", .invalidArgument, "too many arguments for option 'rs' (at most 8)"),
        ("s:1:1:1:1:ce:0:0:9", .invalidArgument, "too many arguments for option 's' (at most 7)"),
        ("size:-1", .invalidArgument, "invalid argument '-1' for option 'size' (expected an integer 0...16384)"),
        ("rt:Fit", .invalidArgument, "invalid argument 'Fit' for option 'rt' (expected fit, fill, fill-down, force, auto)"),
        ("w:16385", .invalidArgument, "invalid argument '16385' for option 'w' (expected an integer 0...16384)"),
        ("width:1.5", .invalidArgument, "invalid argument '1.5' for option 'width' (expected an integer 0...16384)"),
        ("h:", .invalidArgument, "invalid argument '' for option 'h' (expected an integer 0...16384)"),
        ("h:99999999999999999999999", .invalidArgument, "invalid argument '99999999999999999999999' for option 'h' (expected an integer 0...16384)"),
        ("w:1:2", .invalidArgument, "too many arguments for option 'w' (at most 1)"),
        ("el:yes", .invalidArgument, "invalid argument 'yes' for option 'el' (expected 1, t, true, 0, f or false)"),
        ("enlarge:", .invalidArgument, "invalid argument '' for option 'enlarge' (expected 1, t, true, 0, f or false)"),
        ("ex:1:sm", .invalidArgument, "invalid argument 'sm' for option 'ex' (expected ce, no, so, ea, we, noea, nowe, soea, sowe, fp)"),
        ("ex:1:ce:1:2:3", .invalidArgument, "too many arguments for option 'ex' (at most 4)"),
        ("g:middle", .invalidArgument, "invalid argument 'middle' for option 'g' (expected ce, no, so, ea, we, noea, nowe, soea, sowe, sm, fp)"),
        ("g:sm:1", .invalidArgument, "gravity 'sm' takes no offsets in option 'g'"),
        ("g:fp:0.5", .invalidArgument, "gravity 'fp' takes two coordinates in option 'g'"),
        ("g:fp:0.5:1.5", .invalidArgument, "invalid argument '1.5' for option 'g' (expected a number 0...1)"),
        ("g:ce:1:2:3", .invalidArgument, "too many offsets for option 'g' (at most 2)"),
        ("gravity:no:x", .invalidArgument, "invalid argument 'x' for option 'gravity' (expected a number)"),
        ("g:no:NaN", .invalidArgument, "invalid argument 'NaN' for option 'g' (expected a number)"),
        ("g:no:1e999", .invalidArgument, "invalid argument '1e999' for option 'g' (expected a number)"),
        ("dpr:0", .invalidArgument, "invalid argument '0' for option 'dpr' (expected a number above 0, at most 8)"),
        ("dpr:-1", .invalidArgument, "invalid argument '-1' for option 'dpr' (expected a number above 0, at most 8)"),
        ("dpr:8.5", .invalidArgument, "invalid argument '8.5' for option 'dpr' (expected a number above 0, at most 8)"),
        ("dpr:0x2", .invalidArgument, "invalid argument '0x2' for option 'dpr' (expected a number above 0, at most 8)"),
        ("dpr:inf", .invalidArgument, "invalid argument 'inf' for option 'dpr' (expected a number above 0, at most 8)"),
        ("q:101", .invalidArgument, "invalid argument '101' for option 'q' (expected an integer 0...100)"),
        ("quality:-1", .invalidArgument, "invalid argument '-1' for option 'quality' (expected an integer 0...100)"),
        ("f:tif", .invalidFormat, "unknown image format 'tif' in 'f'"),
        ("format:", .invalidFormat, "unknown image format '' in 'format'"),
        ("ext:cur", .invalidFormat, "unknown image format 'cur' in 'ext'"),
        ("bg:12345", .invalidArgument, "invalid argument '12345' for option 'bg' (expected a hex colour, rgb or rrggbb)"),
        ("bg:ggg", .invalidArgument, "invalid argument 'ggg' for option 'bg' (expected a hex colour, rgb or rrggbb)"),
        ("bg:1:2", .invalidArgument, "option 'bg' takes a hex colour or R:G:B"),
        ("background:256:0:0", .invalidArgument, "invalid argument '256' for option 'background' (expected a number 0...255)"),
        ("bg:0:+1:0", .invalidArgument, "invalid argument '+1' for option 'bg' (expected a number 0...255)"),
        ("sm:2", .invalidArgument, "invalid argument '2' for option 'sm' (expected 1, t, true, 0, f or false)"),
        ("strip_metadata:yes", .invalidArgument, "invalid argument 'yes' for option 'strip_metadata' (expected 1, t, true, 0, f or false)"),
        ("cb:a:b", .invalidArgument, "too many arguments for option 'cb' (at most 1)"),
        ("pr:nothing", .unknownPreset, "unknown preset 'nothing'"),
        ("preset:", .unknownPreset, "unknown preset ''"),
    ]

    @Test(arguments: cases)
    func refused(options: String, kind: ServiceError.Kind, reason: String) {
        let error = parser.refusal("/insecure/\(options)/plain/http://a.example/x.jpg")
        #expect(error == ServiceError(kind, reason: reason))
        #expect(error?.status == 400)
    }

    @Test func reasonsEscapeWhatTheRequestWrote() {
        let error = parser.refusal("/_/%0D%0A<b>:1/plain/http://a.example/x.jpg")
        #expect(error?.kind == .unknownOption)
        #expect(error?.reason == "unknown option '%250D%250A%3Cb%3E'")
        let long = String(repeating: "x", count: 5000)
        let longError = parser.refusal("/_/\(long):1/plain/http://a.example/x.jpg")
        #expect(longError?.reason == "unknown option '\(String(repeating: "x", count: 32))...'")
    }

    @Test func everyKindHasItsStatus() {
        let statuses = Dictionary(uniqueKeysWithValues: ServiceError.Kind.allCases.map { ($0, $0.status) })
        #expect(statuses == [
            .notAnImageURL: 404, .pathTooLong: 414, .unknownOption: 400, .invalidArgument: 400,
            .tooManyOptions: 400, .unknownPreset: 400, .unsupportedURLFormat: 400,
            .invalidSource: 400, .invalidFormat: 400, .invalidSignature: 403, .missingSignature: 403,
            .methodNotAllowed: 405, .unsupportedOption: 400, .unsupportedOutputFormat: 400,
            .sourceSchemeNotAllowed: 403, .sourceNotAllowed: 403, .privateNetworkSource: 403, .redirectNotAllowed: 403,
            .sourceNotFound: 404, .sourceFailed: 502, .sourceUnreachable: 502, .sourceTimedOut: 504,
            .deadlineExceeded: 504, .notAnImage: 422, .sourceTooLarge: 422, .resultTooLarge: 422,
            .processingFailed: 422, .overloaded: 429, .cancelled: 503, .unavailable: 503,
        ])
        #expect(ServiceError(.invalidSignature, reason: "invalid signature").description == "403 invalid signature")
    }
}
