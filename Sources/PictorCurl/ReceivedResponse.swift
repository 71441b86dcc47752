import Foundation
import PictorCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A finished exchange as the event thread hands it over: the parsed head and the body.
///
/// Nothing here builds Foundation's `HTTPURLResponse`: on Linux its initialiser canonicalises
/// every field name through `NSString`, which cost about a tenth of the event thread's time in
/// a loopback download run. The loading stage carries the ``/PictorCore/HTTPResponseHead``
/// instead, and the pipeline builds the Foundation response only when asked for one.
struct ReceivedResponse: Sendable {
    /// The URL the request was sent to (redirects are not followed by the transport).
    let url: URL
    /// The final status code.
    let statusCode: Int
    /// The final response's head.
    let head: ResponseHeadParser
    /// The whole decoded body.
    let body: Data

    /// The response for ``/PictorCore/DataTransport/send(_:)``.
    func transportResponse() -> TransportResponse {
        TransportResponse(
            head: HTTPResponseHead(url: url, statusCode: statusCode, httpVersion: head.httpVersion ?? "HTTP/1.1", fields: head.fields),
            body: body)
    }
}
