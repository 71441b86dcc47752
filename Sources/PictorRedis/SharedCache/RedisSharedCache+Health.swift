import Foundation
import PictorCore
import Synchronization

extension RedisSharedCache {
    /// Sends `PING` to the server, or to every primary of a cluster, and waits for `PONG` for
    /// at most `timeout`. The command itself is still bounded by the configuration's timeouts
    /// (``RedisConfiguration/connectTimeout``, ``RedisConfiguration/commandTimeout``); a
    /// shorter `timeout` returns earlier and leaves the call to end on its own.
    ///
    /// - Parameter timeout: the longest wait for every answer.
    /// - Throws: ``RedisError/timeout`` when no answer came in time; the client's
    ///   ``RedisError`` when it could not ask (refused, unreachable, cluster down);
    ///   ``RedisError/server(_:)`` for an error reply (`NOAUTH`, `LOADING`, …).
    public func ping(timeout: Duration) async throws(RedisError) {
        let client = client
        // Not a task group: a group waits for its children, and a hiredis call in flight is
        // not interrupted by cancellation, so the deadline would wait for the client's own
        // timeouts. The call goes on in a task of its own; the first of it and the deadline
        // answers.
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[RedisReply], RedisError>?, Never>) in
            let answered = Mutex(false)
            let answer: @Sendable (Result<[RedisReply], RedisError>?) -> Void = { outcome in
                let first = answered.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: outcome) }
            }
            let deadline = Task {
                try? await Task.sleep(for: timeout)
                answer(nil)
            }
            Task {
                do throws(RedisError) {
                    answer(.success(try await client.sendToEachPrimary([Data("PING".utf8)])))
                } catch {
                    answer(.failure(error))
                }
                deadline.cancel()
            }
        }
        switch outcome {
        case nil:
            throw RedisError.timeout
        case .failure(let error)?:
            throw error
        case .success(let replies)?:
            for reply in replies {
                switch reply {
                case .status("PONG"): continue
                case .error(let message): throw RedisError.server(message)
                default: throw RedisError.protocolError("unexpected reply to PING")
                }
            }
        }
    }

    /// ``ping(timeout:)`` as a ``/PictorCore/TierHealth``: usable when every primary answered
    /// `PONG` in time, else unusable with the error's description (which never holds the
    /// password).
    public func health(timeout: Duration) async -> TierHealth {
        do {
            try await ping(timeout: timeout)
            return .usable
        } catch {
            return .unusable(reason: "redis does not answer (\(error))")
        }
    }
}
