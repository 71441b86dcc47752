import PictorCore
import Testing
@testable import PictorService

@Suite struct PathGrammarTests {
    let parser: ProcessingURLParser

    init() throws {
        parser = try Fixture.unsigned()
    }

    @Test func plainSourceIsPercentDecoded() throws {
        let url = try parser.parse("/insecure/rs:fit:512:512/plain/https%3A%2F%2Forigin.example%2Fa%20b.jpg%3Fv%3D1%26w%3D2")
        #expect(url.source == SourceURL(url: "https://origin.example/a b.jpg?v=1&w=2", encoding: .plain))
        #expect(url.options.width == 512)
        #expect(url.options.format == nil)
    }

    @Test func plainSourceMayKeepItsSlashesAndPlusSigns() throws {
        let url = try parser.parse("/_/plain/http://example.com/images/a+b.jpg")
        #expect(url.source.url == "http://example.com/images/a+b.jpg")
    }

    @Test func plainExtensionAfterAt() throws {
        let url = try parser.parse("/_/plain/http://example.com/images/curiosity.jpg@png")
        #expect(url.source.url == Fixture.curiosity)
        #expect(url.options.format == .png)
    }

    @Test func encodedAtIsPartOfThePlainURL() throws {
        let url = try parser.parse("/_/plain/http://user%40host.example/a.jpg@webp")
        #expect(url.source.url == "http://user@host.example/a.jpg")
        #expect(url.options.format == .webp)
    }

    @Test func emptyExtensionIsIgnored() throws {
        #expect(try parser.parse("/_/plain/http://a.example/x.jpg@").options.format == nil)
        #expect(try parser.parse("/_/\(Fixture.curiositySplit).").options.format == nil)
    }

    @Test func base64SourceSplitBySlashes() throws {
        let url = try parser.parse("/_/rs:fill:300:400:0/g:sm/\(Fixture.curiositySplit).png")
        #expect(url.source == SourceURL(url: Fixture.curiosity, encoding: .base64))
        #expect(url.options.format == .png)
        #expect(url.options.resizingType == .fill)
        #expect(url.options.gravity.kind == .smart)
    }

    @Test func base64SourceInOneSegmentWithPaddingAndUnicode() throws {
        // python3 -c 'import base64; print(base64.urlsafe_b64encode("https://origin.example/ünï?a=1&b=2".encode()))'
        let url = try parser.parse("/_/aHR0cHM6Ly9vcmlnaW4uZXhhbXBsZS_DvG7Drz9hPTEmYj0y")
        #expect(url.source.url == "https://origin.example/ünï?a=1&b=2")
        #expect(try parser.parse("/_/aHR0cDovL2V4YW1wbGUuY29tL2ltYWdlcy9jdXJpb3NpdHkuanBn==").source.url == Fixture.curiosity)
    }

    @Test func extensionOverridesFormatOption() throws {
        #expect(try parser.parse("/_/f:png/plain/http://a.example/x@avif").options.format == .avif)
        #expect(try parser.parse("/_/f:png/\(Fixture.curiositySplit).jpg").options.format == .jpeg)
    }

    @Test func queryIsIgnoredAndLeadingSlashOptional() throws {
        let url = try parser.parse("/_/w:10/plain/http://a.example/x.jpg?utm=1")
        #expect(url.source.url == "http://a.example/x.jpg")
        #expect(try parser.parse("_/w:10/plain/http://a.example/x.jpg") == url)
    }

    @Test func optionsMayBeOmitted() throws {
        let url = try parser.parse("/insecure/plain/http://a.example/x.jpg")
        #expect(url.options == ProcessingOptions())
        #expect(url.presets.isEmpty)
    }

    @Test func proxiesNormalisationIsUndone() throws {
        // A CDN that encodes ':' in the options, or merges "//" in the plain URL.
        let url = try parser.parse("/_/rs%3Afill%3A10%3A20/plain/https:/origin.example/a.jpg")
        #expect(url.options.resizingType == .fill)
        #expect(url.options.height == 20)
        #expect(url.source.url == "https://origin.example/a.jpg")
        #expect(try parser.parse("/_/plain/local:/a/b.png").source.url == "local:///a/b.png")
        #expect(try parser.parse("/_/plain/https://o.example/a:/b").source.url == "https://o.example/a:/b")
    }

    @Test(arguments: [
        ("/_/plain/http://a.example/x.jpg@png@webp", "the source URL has more than one '@' extension"),
        ("/_/\(Fixture.curiositySplit).png.webp", "the source URL has more than one '.' extension"),
        ("/_/plain/@png", "the source URL is empty"),
        ("/_/.png", "the source URL is empty"),
        ("/_/w:10/", "the source URL is missing"),
        ("/_/plain/http://a.example/%zz.jpg", "invalid percent-encoding in the plain source URL"),
        ("/_/plain/http://a.example/x%2", "invalid percent-encoding in the plain source URL"),
        ("/_/plain/http://a.example/%FF.jpg", "the source URL is not valid UTF-8"),
        ("/_/aHR0c*Dov", "invalid URL-safe base64 in the source URL"),
        ("/_/aHR0cDovL+2V4", "invalid URL-safe base64 in the source URL"),
        ("/_/aHR0c", "invalid URL-safe base64 in the source URL"),
        ("/_/aHR0=cDov", "invalid URL-safe base64 in the source URL"),
        ("/_/==", "the source URL is empty"),
        ("/_/plain/http://user@a.example/x.jpg", "the plain source URL has an '@' that is not an extension: encode an '@' of the URL as %40"),
        ("/_/plain/http://a.example/x.jpg@p-ng", "the plain source URL has an '@' that is not an extension: encode an '@' of the URL as %40"),
    ])
    func badSourcesAre400(path: String, reason: String) {
        let error = parser.refusal(path)
        #expect(error == ServiceError(.invalidSource, reason: reason))
        #expect(error?.status == 400)
    }

    @Test func anEmptySegmentAmongTheOptionsIsNamed() {
        for path in ["/_//plain/http://a.example/x.jpg", "/_/w:10//plain/http://a.example/x.jpg", "/_//aHR0cDovL2EuZXhhbXBsZS94LmpwZw"] {
            let error = parser.refusal(path)
            #expect(error == ServiceError(.unknownOption, reason: "an empty path segment where an option or the source was expected"), "\(path)")
            #expect(error?.status == 400)
        }
        // A `//` inside a plain source URL is the URL's.
        #expect((try? parser.parse("/_/w:10/plain/http://a.example//x.jpg"))?.source.url == "http://a.example//x.jpg")
    }

    @Test func anEmptyOptionsSegmentIsSignedAsSent() throws {
        // The signature covers `//plain/…` as the client sent it; the refusal is the empty
        // segment's, never a signature mismatch.
        let key = try SigningKey(key: Array("key".utf8), salt: Array("salt".utf8))
        let signed = try ProcessingURLParser(signature: SignaturePolicy(keys: [key]))
        let path = "//plain/http://a.example/x.jpg"
        let signature = Base64URL.encode(key.mac(path: path[...]))
        #expect(signed.refusal("/\(signature)\(path)")?.kind == .unknownOption)
    }

    @Test func unknownExtensionIs400() {
        let error = parser.refusal("/_/plain/http://a.example/x.jpg@exe")
        #expect(error == ServiceError(.invalidFormat, reason: "unknown image format 'exe' in 'extension'"))
        #expect(error?.status == 400)
        #expect(parser.refusal("/_/plain/http://a.example/x.jpg@PNG")?.kind == .invalidFormat)
    }

    @Test(arguments: ["", "/", "//", "/insecure", "/insecure/", "insecure", "/?x=/a/b"])
    func pathsThatAreNotImagesAre404(path: String) {
        let error = parser.refusal(path)
        #expect(error?.kind == .notAnImageURL)
        #expect(error?.status == 404)
        #expect(error?.reason == "not an image path: expected /{signature}/{options}/{source}")
    }

    @Test func basicURLFormatIsRefused() {
        let error = parser.refusal("/_/fill/300/400/sm/0/\(Fixture.curiositySplit).png")
        #expect(error?.kind == .unsupportedURLFormat)
        #expect(error?.status == 400)
    }
}
