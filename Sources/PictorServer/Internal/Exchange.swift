import Foundation
import PictorService
import Synchronization

/// A libmicrohttpd connection pointer carried to the task that answers its request.
///
/// `@unchecked Sendable`: the pointer is only dereferenced by libmicrohttpd, and only while the
/// connection exists. Off the daemon's threads it is used for `MHD_resume_connection` alone,
/// under ``ServerCore``'s lock and only while the exchange is registered as suspended (a
/// suspended connection is never closed, and the daemon is stopped only after every
/// registered one has been resumed).
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    /// The connection's identity while it is open (its address).
    var key: UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(pointer))) }
}

/// One request on one connection, from its request line to the end of its response: what the
/// daemon's callbacks and the task making its answer share.
final class Exchange: Sendable {
    /// Where the exchange is.
    enum Phase: Sendable {
        /// The request line arrived; the header is being read.
        case started
        /// The header is read (the first call of the access handler); the body, if any, is
        /// being read and thrown away.
        case headerRead
        /// Suspended while the service makes the answer.
        case working
        /// The answer is made; the connection was resumed to send it.
        case ready(ServiceResponse, closes: Bool)
        /// The answer was queued.
        case answered
        /// The client hung up while the answer was being made; the connection was resumed to
        /// be closed, with no answer.
        case abandoned
    }

    struct State: Sendable {
        var phase = Phase.started
        var method = "-"
        var headers: [(name: String, value: String)] = []
        var discardedBytes = 0
        var task: Task<Void, Never>?
        /// Whether the work for the answer is no longer wanted (the client hung up, or the
        /// drain answered for it): a task stored after this is cancelled at once.
        var workCancelled = false
        /// Whether the drain waits for this exchange (it went to the service).
        var counted = false
        var status: Int?
        var bytesSent = 0
    }

    /// The request target exactly as received (percent-encoding and query kept), as the
    /// signature was computed over it.
    let target: String
    /// Whether the target as received is UTF-8 without control bytes; when not, ``target`` is
    /// its repaired form and the request is refused.
    let targetIsWellFormed: Bool
    let client: String
    let connection: ConnectionHandle
    /// The connection's socket (-1 when libmicrohttpd did not give it), only looked at while
    /// the connection is suspended (``HangUpWatch``).
    let socket: Int32
    let arrival = ContinuousClock.now
    let arrivalDate = Date()
    let state = Mutex(State())

    init(target: String, targetIsWellFormed: Bool = true, client: String, connection: ConnectionHandle, socket: Int32) {
        self.target = target
        self.targetIsWellFormed = targetIsWellFormed
        self.client = client
        self.connection = connection
        self.socket = socket
    }

    /// `target` in origin form: an absolute-form target (`http://host/path?query`, which a
    /// server must accept, RFC 9112 §3.2.2) becomes its path and query (`/` when it has no
    /// path); any other target is returned as it is.
    static func originForm(of target: String) -> String {
        let bytes = target.utf8
        // Nearly every target is in origin form already.
        if bytes.first == UInt8(ascii: "/") { return target }
        let scheme: Int
        if bytes.count >= 7, bytes.prefix(7).map({ $0 | 0x20 }) == Array("http://".utf8) {
            scheme = 7
        } else if bytes.count >= 8, bytes.prefix(8).map({ $0 | 0x20 }) == Array("https://".utf8) {
            scheme = 8
        } else {
            return target
        }
        let afterScheme = bytes.index(bytes.startIndex, offsetBy: scheme)
        guard let pathStart = bytes[afterScheme...].firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) else {
            return "/"
        }
        let rest = String(target[pathStart...])
        return rest.hasPrefix("?") ? "/" + rest : rest
    }

    /// Whether a request target, decoded as UTF-8 without repair, has no control byte (C0,
    /// DEL): such bytes must be percent-encoded. (A target that is not UTF-8 is not well formed
    /// either: repaired into U+FFFD it would name another source than the one sent.)
    static func isWellFormed(_ target: String) -> Bool {
        !target.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }

    /// The target's path (before `?`).
    var path: Substring {
        // By byte: `?` is ASCII, and a Character-wise split costs a warm request 5 % of its CPU.
        guard let question = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target[...] }
        return target[..<question]
    }
}
