import Foundation
import PictorCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A finished exchange as the event thread hands it over: the parsed head and the body.
///
/// The `HTTPURLResponse` is built by the caller, after it resumes, rather than on the event
/// thread: on Linux its initialiser canonicalises every field name through `NSString`, which
/// cost about a tenth of the event thread's time in a loopback download run, and the event
/// thread serves every transfer of the transport.
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
    ///
    /// - Throws: ``/PictorCore/DataLoadingError/transport(code:message:)`` (`badServerResponse`)
    ///   when Foundation refuses the head.
    func transportResponse() throws -> TransportResponse {
        guard let response = HTTPURLResponse(
            url: url, statusCode: statusCode, httpVersion: head.httpVersion ?? "HTTP/1.1", headerFields: head.headerFields)
        else {
            throw DataLoadingError.transport(code: URLError.badServerResponse.rawValue, message: "no valid response head")
        }
        return TransportResponse(response: response, body: body)
    }
}
