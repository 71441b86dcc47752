internal import CHiredis
import Foundation

extension RedisReply {
    /// A hiredis reply tree copied into Swift values (the tree is the caller's to free).
    init(copying reply: UnsafePointer<redisReply>) {
        let r = reply.pointee
        func bytes() -> Data { r.len > 0 && r.str != nil ? Data(bytes: r.str, count: r.len) : Data() }
        switch r.type {
        case REDIS_REPLY_STRING: self = .bulk(bytes())
        case REDIS_REPLY_STATUS: self = .status(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_ERROR: self = .error(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_INTEGER: self = .integer(Int64(r.integer))
        case REDIS_REPLY_NIL: self = .null
        case REDIS_REPLY_ARRAY:
            self = .array((0..<r.elements).map { index in
                r.element[index].map { RedisReply(copying: $0) } ?? .null
            })
        default: self = .error("unknown hiredis reply type \(r.type)")
        }
    }

    /// The complete replies in `bytes` (RESP as a server sends it), read by hiredis's reader and
    /// copied as a connection reads and copies them; a reply cut short at the end is left out.
    /// The fuzzing entry to the reply path: what a server, or anyone between it and Pictor,
    /// sends.
    ///
    /// - Returns: the replies and whether bytes of an incomplete one remain, or `nil` when
    ///   hiredis reports a protocol error (a connection then fails with
    ///   ``RedisError/protocolError(_:)``).
    package static func read(_ bytes: Data) -> (replies: [RedisReply], incomplete: Bool)? {
        guard let reader = redisReaderCreate() else { return nil }
        defer { redisReaderFree(reader) }
        let fed = bytes.withUnsafeBytes { raw in
            raw.isEmpty ? REDIS_OK : redisReaderFeed(reader, raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count)
        }
        guard fed == REDIS_OK else { return nil }
        var replies: [RedisReply] = []
        while true {
            var raw: UnsafeMutableRawPointer?
            guard redisReaderGetReply(reader, &raw) == REDIS_OK else { return nil }
            guard let raw else { break }
            replies.append(RedisReply(copying: raw.assumingMemoryBound(to: redisReply.self)))
            freeReplyObject(raw)
        }
        return (replies, reader.pointee.len > reader.pointee.pos)
    }
}
