import Foundation

/// The shape of the access log's lines: one line per request, written when its response has
/// been sent (or the connection ended before it was).
///
/// Each line has the time (UTC, ISO 8601 with milliseconds), the client address (`unix` for a
/// Unix-socket peer), the method, the request target (its first 1,024 bytes, then
/// `...[+N bytes]` for the rest; bytes outside printable ASCII, `"` and `\` escaped as `\xHH`
/// in text, `\u00HH` in JSON), the status (`499` when the client went away before its answer, `-`
/// when the request never reached the server: headers over the limit, malformed HTTP), the body
/// bytes sent, and the milliseconds from the request's arrival to its end.
public enum AccessLogFormat: String, Sendable, Hashable, CaseIterable {
    /// `2026-12-05T01:35:01.123Z 127.0.0.1 "GET /sig/rs:fit:64:64/plain/…" 200 5321 12.4ms`
    case text
    /// `{"time":"2026-12-05T01:35:01.123Z","client":"127.0.0.1","method":"GET","path":"/sig/…","status":200,"bytes":5321,"ms":12.4}`
    /// (`status` is `null` when the request never reached the server).
    case json
}

extension AccessLogFormat {
    /// A line that is not an access-log line (a warning, libmicrohttpd's error messages, a
    /// command's own messages) in this format: `message` as it is for ``text``; for ``json``
    /// an object, `{"time":"2026-12-05T01:35:01.123Z","message":"…"}`, so that standard error
    /// holds only JSON lines. The message's bytes outside printable ASCII are escaped.
    ///
    /// - Parameters:
    ///   - message: one line, without its line feed.
    ///   - time: when it was written; now by default.
    public func messageLine(_ message: String, time: Date = Date()) -> String {
        switch self {
        case .text: message
        case .json: #"{"time":"\#(AccessLogLine.timestamp(time))","message":\#(AccessLogLine.jsonString(message))}"#
        }
    }
}
