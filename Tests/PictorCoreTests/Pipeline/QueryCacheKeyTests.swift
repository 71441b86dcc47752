import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore
import PictorTestSupport
import Testing

/// `Configuration.urlCacheKey(ignoringQueryParameters:)`: presigned URLs that differ only in
/// their signature share one entry, each request still sends its whole URL, and the rest of the
/// URL is kept byte for byte.
@Suite(.timeLimit(.minutes(5)))
struct QueryCacheKeyTests {
    /// The key of `url` as text (some of these are no valid `URL`), then through the hook
    /// when it parses.
    func key(_ url: String, ignoring names: [String]) -> String {
        let key = IgnoredQueryParameters(names).key(for: url)
        if let parsed = URL(string: url), parsed.absoluteString == url {
            let hook = ImagePipeline.Configuration.urlCacheKey(ignoringQueryParameters: names)
            #expect(hook(ImageRequest(url: parsed)) == key, "\(url)")
        }
        return key
    }

    @Test(arguments: [
        // A name matched whole, wherever it is; the others keep their order and spelling.
        ("https://h/a.png?X-Amz-Signature=1&v=2", ["X-Amz-Signature"], "https://h/a.png?v=2"),
        ("https://h/a.png?v=2&X-Amz-Signature=1&w=3", ["X-Amz-Signature"], "https://h/a.png?v=2&w=3"),
        ("https://h/a.png?b=2&a=1&c=3", ["a"], "https://h/a.png?b=2&c=3"),
        ("https://h/a.png?v=%2F+x&X-Amz-Date=1", ["X-Amz-Date"], "https://h/a.png?v=%2F+x"),
        // A trailing `*` is a prefix; `*` alone is every parameter.
        ("https://h/a.png?X-Amz-Date=1&v=2&X-Amz-Credential=c%2Fd&X-Amz-Signature=9f", ["X-Amz-*"], "https://h/a.png?v=2"),
        ("https://h/a.png?v=2&w=3", ["*"], "https://h/a.png"),
        ("https://h/a.png?X-Amzon=1", ["X-Amz-*"], "https://h/a.png?X-Amzon=1"),
        // Every parameter left out: the `?` goes too.
        ("https://h/a.png?Expires=1&Signature=2&Key-Pair-Id=3", ["Expires", "Signature", "Key-Pair-Id"], "https://h/a.png"),
        // Case-sensitive, as S3 signs the names.
        ("https://h/a.png?x-amz-signature=1&X-Amz-Signature=2", ["X-Amz-Signature"], "https://h/a.png?x-amz-signature=1"),
        ("https://h/a.png?x-amz-date=1", ["X-Amz-*"], "https://h/a.png?x-amz-date=1"),
        // Names are percent-decoded before they are compared; `+` is not a space.
        ("https://h/a.png?X%2DAmz%2DSignature=1&v=2", ["X-Amz-Signature"], "https://h/a.png?v=2"),
        ("https://h/a.png?X%2dAmz-Date=1&v=2", ["X-Amz-*"], "https://h/a.png?v=2"),
        ("https://h/a.png?caf%C3%A9=1&v=2", ["café"], "https://h/a.png?v=2"),
        ("https://h/a.png?a+b=1", ["a b"], "https://h/a.png?a+b=1"),
        ("https://h/a.png?a%zz=1&v=2", ["a%zz"], "https://h/a.png?v=2"),
        // Repeated parameters all go; a name without `=` is a name; empty parameters are kept.
        ("https://h/a.png?sig=1&v=2&sig=3", ["sig"], "https://h/a.png?v=2"),
        ("https://h/a.png?sig&v=2", ["sig"], "https://h/a.png?v=2"),
        ("https://h/a.png?v=2&&sig=1", ["sig"], "https://h/a.png?v=2&"),
        ("https://h/a.png?sig=a=b&v", ["sig"], "https://h/a.png?v"),
        // The fragment stays; a `?` inside it is not a query.
        ("https://h/a.png?v=2&sig=1#part", ["sig"], "https://h/a.png?v=2#part"),
        ("https://h/a.png?sig=1#x?sig=2", ["sig"], "https://h/a.png#x?sig=2"),
        ("https://h/a.png#x?sig=2", ["sig"], "https://h/a.png#x?sig=2"),
        // `;` is not a separator; a `*` before the end is an ordinary character.
        ("https://h/a.png?sig=1;v=2", ["sig"], "https://h/a.png"),
        ("https://h/a.png?v=1;sig=2", ["sig"], "https://h/a.png?v=1;sig=2"),
        ("https://h/a.png?a*b=1&axb=2", ["a*b"], "https://h/a.png?axb=2"),
        // Nothing matched: the URL as it is, `?` and all.
        ("https://h/a.png?", ["sig"], "https://h/a.png?"),
        ("https://h/a.png?v=2", ["sig", ""], "https://h/a.png?v=2"),
        ("https://h/a.png", ["*"], "https://h/a.png"),
    ])
    func theNamedParametersAreLeftOutAndTheRestKept(url: String, names: [String], expected: String) {
        #expect(key(url, ignoring: names) == expected)
    }

    /// Names compare as bytes: a name spelled with a combining accent is another name.
    @Test func namesCompareAsBytesNotCanonicalEquivalents() {
        #expect(key("https://h/a.png?caf%C3%A9=1", ignoring: ["cafe\u{301}"]) == "https://h/a.png?caf%C3%A9=1")
        #expect(key("https://h/a.png?caf%C3%A9=1", ignoring: ["caf\u{E9}"]) == "https://h/a.png")
    }

    @Test func noNamesIsTheDefaultKey() {
        let url = "https://h/a.png?X-Amz-Signature=1"
        #expect(key(url, ignoring: []) == url)
        #expect(key(url, ignoring: [""]) == url)
        var noURL = URLRequest(url: URL(string: url)!)
        noURL.url = nil
        #expect(ImagePipeline.Configuration.urlCacheKey(ignoringQueryParameters: ["*"])(ImageRequest(urlRequest: noURL)) == "")
    }

    /// Two presigned URLs of one object: the second is served from the first's entries, and
    /// each load that does go out asks for its own whole URL.
    @Test func presignedURLsShareEntriesAndEachRequestSendsItsWholeURL() async throws {
        let h = Harness { configuration in
            configuration.cacheKey = ImagePipeline.Configuration.urlCacheKey(ignoringQueryParameters: ["X-Amz-*"])
        }
        let first = h.stub("a.img?v=1&X-Amz-Date=20250101T000000Z&X-Amz-Signature=aaa")
        let second = h.stub("a.img?v=1&X-Amz-Date=20250102T000000Z&X-Amz-Signature=bbb")
        let other = h.stub("a.img?v=2&X-Amz-Date=20250102T000000Z&X-Amz-Signature=ccc")

        _ = try await h.pipeline.data(for: ImageRequest(url: first))
        let shared = try await h.pipeline.data(for: ImageRequest(url: second))
        _ = try await h.pipeline.data(for: ImageRequest(url: other))

        #expect(shared.cacheLayer == .disk)
        #expect(h.network.requests.map { $0.url?.absoluteString } == [first.absoluteString, other.absoluteString])
        #expect(h.disk.keys == ["https://example.test/a.img?v=1", "https://example.test/a.img?v=2"])
    }
}
