internal import CHiredis
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One hiredis connection in blocking mode, with its own serial queue.
///
/// Every hiredis call blocks its thread (up to the connect or command timeout), so it runs on
/// ``queue`` — never on Swift's cooperative pool, whose few threads a hung server would
/// otherwise take. A connection is used by one caller at a time (the pool lends it out), which
/// is why it is `@unchecked Sendable`: it moves between tasks but is never shared.
///
/// A connection that saw an I/O error, a timeout or a protocol error is broken
/// (``isBroken``) and must not be reused: after a timeout, the late reply would otherwise be read
/// as the answer to the next command.
final class RedisConnection: @unchecked Sendable {
    /// The node this connection talks to.
    let endpoint: RedisEndpoint
    /// The serial queue all of this connection's blocking calls run on.
    let queue: DispatchQueue
    private let context: UnsafeMutablePointer<redisContext>
    /// Whether the connection failed and must be discarded.
    private(set) var isBroken = false

    private init(endpoint: RedisEndpoint, queue: DispatchQueue, context: UnsafeMutablePointer<redisContext>) {
        self.endpoint = endpoint
        self.queue = queue
        self.context = context
    }

    deinit { redisFree(context) }

    /// Connects to `endpoint` on a new serial queue: TCP connect within the connect timeout,
    /// the command timeout on the socket, then `AUTH` and `SELECT` as configured.
    ///
    /// - Throws: ``RedisError/connectionFailed(endpoint:reason:)`` for any failure, including an
    ///   `AUTH` or `SELECT` that was refused or timed out.
    static func open(to endpoint: RedisEndpoint, configuration: RedisConfiguration) async throws(RedisError) -> RedisConnection {
        let queue = DispatchQueue(label: "pictor.redis.connection.\(endpoint)")
        return try await onQueue(queue) { () throws(RedisError) -> RedisConnection in
            try openBlocking(to: endpoint, configuration: configuration, queue: queue)
        }
    }

    /// Sends `commands` (each an argument list) in one pipeline and reads their replies, on
    /// ``queue``.
    ///
    /// - Throws: ``RedisError/timeout``, ``RedisError/connectionLost`` or
    ///   ``RedisError/protocolError(_:)``; the connection is then broken.
    func send(_ commands: [[Data]]) async throws(RedisError) -> [RedisReply] {
        try await Self.onQueue(queue) { () throws(RedisError) -> [RedisReply] in try self.sendBlocking(commands) }
    }

    /// The blocking form of ``send(_:)``; call it on ``queue`` only.
    func sendBlocking(_ commands: [[Data]]) throws(RedisError) -> [RedisReply] {
        guard !isBroken else { throw .connectionLost }
        let outcome: Result<[RedisReply], RedisError> = SIGPIPEGuard.run {
            for command in commands where !append(command) {
                return .failure(failure(errno: errno))
            }
            var replies: [RedisReply] = []
            replies.reserveCapacity(commands.count)
            for _ in commands {
                var raw: UnsafeMutableRawPointer?
                guard redisGetReply(context, &raw) == REDIS_OK, let raw else {
                    return .failure(failure(errno: errno))
                }
                replies.append(RedisReply(copying: raw.assumingMemoryBound(to: redisReply.self)))
                freeReplyObject(raw)
            }
            return .success(replies)
        }
        return try outcome.get()
    }

    private static func openBlocking(to endpoint: RedisEndpoint, configuration: RedisConfiguration,
                                     queue: DispatchQueue) throws(RedisError) -> RedisConnection {
        guard let context = redisConnectWithTimeout(endpoint.host, Int32(endpoint.port), timeval(configuration.connectTimeout)) else {
            throw .connectionFailed(endpoint: endpoint, reason: "hiredis could not allocate a context")
        }
        if context.pointee.err != 0 {
            let reason = errorText(context)
            redisFree(context)
            throw .connectionFailed(endpoint: endpoint, reason: reason)
        }
        let connection = RedisConnection(endpoint: endpoint, queue: queue, context: context)
        guard redisSetTimeout(context, timeval(configuration.commandTimeout)) == REDIS_OK else {
            throw .connectionFailed(endpoint: endpoint, reason: "cannot set the command timeout: \(errorText(context))")
        }
        var handshake: [[Data]] = []
        if let password = configuration.password {
            handshake.append([Data("AUTH".utf8)] + (configuration.username.map { [Data($0.utf8)] } ?? []) + [Data(password.utf8)])
        }
        if configuration.database != 0 {
            handshake.append([Data("SELECT".utf8), Data(String(configuration.database).utf8)])
        }
        guard !handshake.isEmpty else { return connection }
        let replies: [RedisReply]
        do {
            replies = try connection.sendBlocking(handshake)
        } catch {
            throw .connectionFailed(endpoint: endpoint, reason: "during AUTH/SELECT: \(error)")
        }
        for (command, reply) in zip(handshake, replies) {
            if case .error(let message) = reply {
                let name = String(decoding: command[0], as: UTF8.self)
                throw .connectionFailed(endpoint: endpoint, reason: "\(name) refused: \(message)")
            }
        }
        return connection
    }

    /// Queues one command in hiredis's output buffer; `false` only when hiredis runs out of memory.
    private func append(_ arguments: [Data]) -> Bool {
        // One buffer for all arguments keeps every pointer valid for the whole call.
        var flat: [UInt8] = []
        flat.reserveCapacity(arguments.reduce(1) { $0 + $1.count })
        var offsets: [Int] = []
        var lengths: [Int] = []
        for argument in arguments {
            offsets.append(flat.count)
            lengths.append(argument.count)
            flat.append(contentsOf: argument)
        }
        flat.append(0)  // never empty, so the base address exists
        return flat.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            var argv: [UnsafePointer<CChar>?] = offsets.map { base + $0 }
            return argv.withUnsafeMutableBufferPointer { argv in
                lengths.withUnsafeBufferPointer { lengths in
                    redisAppendCommandArgv(context, Int32(arguments.count), argv.baseAddress, lengths.baseAddress) == REDIS_OK
                }
            }
        }
    }

    /// Marks the connection broken and maps hiredis's error to a ``RedisError``.
    private func failure(errno savedErrno: Int32) -> RedisError {
        isBroken = true
        let text = Self.errorText(context)
        switch context.pointee.err {
        case REDIS_ERR_IO:
            // A socket timeout (SO_RCVTIMEO/SO_SNDTIMEO) surfaces as EAGAIN.
            if savedErrno == EAGAIN || savedErrno == EWOULDBLOCK || text.contains("temporarily unavailable") {
                return .timeout
            }
            return .connectionLost
        case REDIS_ERR_EOF:
            return .connectionLost
        case REDIS_ERR_PROTOCOL:
            return .protocolError(text)
        default:
            return .protocolError(text.isEmpty ? "hiredis error \(context.pointee.err)" : text)
        }
    }

    private static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// A duration as a `timeval`, at least 1 ms (a zero timeout means "none" to the socket).
    private static func timeval(_ duration: Duration) -> timeval {
        let (seconds, attoseconds) = duration.components
        let micro = max(1_000, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        return Glibc.timeval(tv_sec: Int(micro / 1_000_000), tv_usec: Int(micro % 1_000_000))
    }

    /// Runs blocking `body` on `queue` and waits for it without holding a cooperative thread.
    private static func onQueue<T: Sendable>(_ queue: DispatchQueue,
                                             _ body: @escaping @Sendable () throws(RedisError) -> T) async throws(RedisError) -> T {
        let result: Result<T, RedisError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(RedisError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
