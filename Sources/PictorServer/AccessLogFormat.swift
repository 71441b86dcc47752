/// The shape of the access log's lines: one line per request, written when its response has
/// been sent (or the connection ended before it was).
///
/// Each line has the time (UTC, ISO 8601 with milliseconds), the client address (`unix` for a
/// Unix-socket peer), the method, the request target (bytes outside printable ASCII, `"` and
/// `\` escaped as `\xHH`), the status (`499` when the client went away before its answer, `-`
/// when the request never reached the server: headers over the limit, malformed HTTP), the body
/// bytes sent, and the milliseconds from the request's arrival to its end.
public enum AccessLogFormat: String, Sendable, Hashable, CaseIterable {
    /// `2026-12-05T01:35:01.123Z 127.0.0.1 "GET /sig/rs:fit:64:64/plain/…" 200 5321 12.4ms`
    case text
    /// `{"time":"2026-12-05T01:35:01.123Z","client":"127.0.0.1","method":"GET","path":"/sig/…","status":200,"bytes":5321,"ms":12.4}`
    /// (`status` is `null` when the request never reached the server).
    case json
}
