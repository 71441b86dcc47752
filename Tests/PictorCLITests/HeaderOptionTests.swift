import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCLI
import Testing

/// `-H` builds the request headers as curl sends them.
@Suite struct HeaderOptionTests {
    func request(_ headers: [(name: String, value: String)]) -> URLRequest {
        var request = URLRequest(url: URL(string: "https://example.test/a.jpg")!)
        HeaderOption.apply(headers, to: &request)
        return request
    }

    @Test func repeatedCookiesAreOneCookieHeaderJoinedBySemicolons() {
        let r = request([("Cookie", "a=1"), ("cookie", "b=2"), ("X-Tag", "x"), ("X-Tag", "y")])
        #expect(r.value(forHTTPHeaderField: "Cookie") == "a=1; b=2")
        #expect(r.value(forHTTPHeaderField: "X-Tag") == "x,y" || r.value(forHTTPHeaderField: "X-Tag") == "x, y")
    }

    @Test func anEmptyValueSendsNoSuchHeader() {
        let r = request([("Authorization", "Bearer a"), ("Authorization", "")])
        #expect(r.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(request([("Accept", "")]).value(forHTTPHeaderField: "Accept") == nil)
    }
}
