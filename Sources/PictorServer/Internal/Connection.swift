import Foundation
import PictorService
internal import CMicroHTTPD

/// The calls ``ServerCore`` makes on one libmicrohttpd connection: its header fields, suspend,
/// resume, and queueing a response.
struct Connection: Sendable {
    let handle: ConnectionHandle

    /// The request's header fields in the order received.
    func headers() -> [(name: String, value: String)] {
        final class Fields { var list: [(name: String, value: String)] = [] }
        let fields = Fields()
        let context = Unmanaged.passUnretained(fields).toOpaque()
        _ = MHD_get_connection_values(handle.pointer, .HEADER_KIND, { context, _, key, value in
            guard let context, let key else { return .YES }
            let fields = Unmanaged<Fields>.fromOpaque(context).takeUnretainedValue()
            fields.list.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
            return .YES
        }, context)
        return withExtendedLifetime(fields) { fields.list }
    }

    /// Stops the daemon's processing of the connection until ``resume()``; called from the
    /// access handler.
    func suspend() {
        MHD_suspend_connection(handle.pointer)
    }

    /// Wakes the daemon, which calls the access handler again for this connection; any thread.
    func resume() {
        MHD_resume_connection(handle.pointer)
    }

    /// Queues `response`; `closes` adds `Connection: close`. Returns the bytes of body that
    /// will be sent, or `nil` when libmicrohttpd refused the response.
    ///
    /// Its `Content-Length` is libmicrohttpd's to write: the body's length, or, for `HEAD` and
    /// for a 304, the length the service gave (that of the 200), with no body sent.
    /// libmicrohttpd 0.9.75 writes a length on every 304: from an empty buffer a wrong
    /// `Content-Length: 0` (RFC 9110 §8.6 allows only the 200's), and for a response of unknown
    /// size `Transfer-Encoding: chunked` and a chunk terminator that breaks keep-alive, so
    /// omitting it is not possible.
    func queue(_ response: ServiceResponse, head: Bool, closes: Bool) -> Int? {
        let made: OpaquePointer?
        var bodyBytes = response.body.count
        if head || response.status == 304, let length = response.header("Content-Length").flatMap(Int.init), length > 0 {
            // The reader is never called: libmicrohttpd sends the size and no body.
            made = MHD_create_response_from_callback(UInt64(length), 4096, { _, _, _, _ in -2 }, nil, nil)
            bodyBytes = 0
        } else {
            made = response.body.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
        guard let made else { return nil }
        defer { MHD_destroy_response(made) }
        for field in response.headers where field.name.lowercased() != "content-length" {
            _ = MHD_add_response_header(made, field.name, field.value)
        }
        if closes { _ = MHD_add_response_header(made, "Connection", "close") }
        guard MHD_queue_response(handle.pointer, UInt32(response.status), made) == .YES else { return nil }
        return head || response.status == 304 ? 0 : bodyBytes
    }
}
