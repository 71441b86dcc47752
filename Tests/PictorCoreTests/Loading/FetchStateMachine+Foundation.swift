import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PictorCore

extension FetchStateMachine {
    /// ``loaded(_:response:redirects:exchange:)`` with Foundation responses, as the state machine
    /// tests write them; the fetch job hands over the loader's heads instead.
    mutating func loaded(
        _ data: Data, response: URLResponse, redirects: [HTTPURLResponse] = [], exchange: HTTPFreshness.Exchange
    ) -> Action {
        loaded(data, response: LoadedResponse(response), redirects: redirects.map { HTTPResponseHead($0) }, exchange: exchange)
    }
}
