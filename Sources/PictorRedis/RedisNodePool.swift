import Foundation
import Synchronization

/// The connections to one node: a few idle ones kept for reuse, at most
/// ``RedisConfiguration/maximumConnectionsPerNode`` in use at once, and a reconnect backoff.
///
/// After a failed connect, connects to this node fail at once with
/// ``RedisError/connectionFailed(endpoint:reason:)`` until the backoff has passed (50 ms, doubling
/// up to 2 s by default), so a dead cache node costs callers nothing rather than a connect
/// timeout each. A successful connect resets the backoff. A lost connection takes the idle ones
/// with it (see ``send(_:)``).
final class RedisNodePool: Sendable {
    /// The node.
    let endpoint: RedisEndpoint
    private let configuration: RedisConfiguration
    private let state: Mutex<State>

    private enum Lease: Sendable {
        case reuse(RedisConnection)
        case create
        case refused(RedisError)
    }

    private struct State: ~Copyable {
        var idle: [RedisConnection] = []
        var inUse = 0
        var waiters: [CheckedContinuation<Lease, Never>] = []
        var retryAfter: ContinuousClock.Instant?
        var backoff: Duration
        var lastFailure = ""
        var closed = false
    }

    init(endpoint: RedisEndpoint, configuration: RedisConfiguration) {
        self.endpoint = endpoint
        self.configuration = configuration
        state = Mutex(State(backoff: configuration.reconnectInitialDelay))
    }

    /// Sends `commands` as one pipeline on a pooled (or new) connection and returns their replies.
    ///
    /// Waits while all connections of this node are in use. A connection that failed is closed,
    /// never returned to the pool.
    ///
    /// - Throws: ``RedisError/connectionFailed(endpoint:reason:)`` when no connection could be
    ///   made (nothing was sent); ``RedisError/timeout``, ``RedisError/connectionLost``,
    ///   ``RedisError/protocolError(_:)`` from the exchange.
    func send(_ commands: [[Data]]) async throws(RedisError) -> [RedisReply] {
        let connection: RedisConnection
        switch await lease() {
        case .refused(let error):
            throw error
        case .reuse(let pooled):
            connection = pooled
        case .create:
            do {
                connection = try await RedisConnection.open(to: endpoint, configuration: configuration)
                connected()
            } catch {
                failedToConnect(error)
                giveBack(nil)
                throw error
            }
        }
        do {
            let replies = try await connection.send(commands)
            giveBack(connection)
            return replies
        } catch {
            if error.kind == .connectionLost { dropIdle() }
            giveBack(nil)
            throw error
        }
    }

    /// Closes the idle connections after one was lost: they most likely went to the same server
    /// process (it died, or restarted), and each would fail its next caller in turn.
    private func dropIdle() {
        let idle = state.withLock { state in
            defer { state.idle = [] }
            return state.idle
        }
        _ = idle  // released here: each closes its socket on deinit
    }

    /// Closes the idle connections, and the others as they come back; later sends fail.
    func close() {
        let (idle, waiters) = state.withLock { state in
            state.closed = true
            defer { state.idle = []; state.waiters = [] }
            return (state.idle, state.waiters)
        }
        _ = idle  // released here: each closes its socket on deinit
        for waiter in waiters { waiter.resume(returning: .refused(closedError)) }
    }

    private var closedError: RedisError { .connectionFailed(endpoint: endpoint, reason: "the client is closed") }

    private func lease() async -> Lease {
        await withCheckedContinuation { (continuation: CheckedContinuation<Lease, Never>) in
            let lease: Lease? = state.withLock { state in
                if state.closed { return .refused(closedError) }
                if let connection = state.idle.popLast() {
                    state.inUse += 1
                    return .reuse(connection)
                }
                guard state.inUse < max(1, configuration.maximumConnectionsPerNode) else {
                    state.waiters.append(continuation)
                    return nil
                }
                if let retryAfter = state.retryAfter, ContinuousClock.now < retryAfter {
                    return .refused(.connectionFailed(endpoint: endpoint, reason: "reconnect backoff after: \(state.lastFailure)"))
                }
                state.inUse += 1
                return .create
            }
            if let lease { continuation.resume(returning: lease) }
        }
    }

    /// Returns a lease: a healthy connection goes to a waiter or the idle list; `nil` (a broken
    /// or never-made connection) frees its place for a waiter to connect anew.
    private func giveBack(_ connection: RedisConnection?) {
        let reusable = connection.flatMap { $0.isBroken ? nil : $0 }
        let waiter: (CheckedContinuation<Lease, Never>, Lease)? = state.withLock { state in
            if state.closed {
                state.inUse -= 1
                return nil
            }
            if !state.waiters.isEmpty {
                let waiter = state.waiters.removeFirst()
                return (waiter, reusable.map(Lease.reuse) ?? .create)  // the place passes on
            }
            state.inUse -= 1
            if let reusable { state.idle.append(reusable) }
            return nil
        }
        if let (continuation, lease) = waiter { continuation.resume(returning: lease) }
    }

    private func connected() {
        state.withLock { state in
            state.retryAfter = nil
            state.backoff = configuration.reconnectInitialDelay
        }
    }

    private func failedToConnect(_ error: RedisError) {
        state.withLock { state in
            state.retryAfter = ContinuousClock.now + state.backoff
            state.backoff = min(state.backoff * 2, max(configuration.reconnectMaximumDelay, configuration.reconnectInitialDelay))
            state.lastFailure = error.kind == .connectionFailed ? error.detail ?? "\(error)" : "\(error)"
        }
    }
}
