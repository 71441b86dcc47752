import Foundation

/// One RESP reply, copied out of hiredis's reply tree (which is freed at once).
package enum RedisReply: Sendable, Equatable {
    /// A bulk string: arbitrary bytes (`GET`'s value).
    case bulk(Data)
    /// A simple status string, e.g. `OK` or `PONG`.
    case status(String)
    /// An integer reply (`INCR`, `DBSIZE`, `DEL`).
    case integer(Int64)
    /// The null bulk string or null array (`GET` of a missing key, `SET … NX` not set).
    case null
    /// An array of replies (`MGET`, `CLUSTER SLOTS`, `SCAN`).
    case array([RedisReply])
    /// An error reply, without the leading `-` (e.g. `OOM command not allowed …`).
    case error(String)

    /// The bytes of a bulk reply, else `nil`.
    package var data: Data? {
        if case .bulk(let data) = self { return data }
        return nil
    }

    /// A bulk or status reply as UTF-8 text (invalid bytes replaced), else `nil`.
    package var string: String? {
        switch self {
        case .bulk(let data): String(decoding: data, as: UTF8.self)
        case .status(let text): text
        default: nil
        }
    }

    /// The value of an integer reply, else `nil`.
    package var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The elements of an array reply, else `nil`.
    package var array: [RedisReply]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The message of an error reply, else `nil`.
    package var errorMessage: String? {
        if case .error(let message) = self { return message }
        return nil
    }
}
