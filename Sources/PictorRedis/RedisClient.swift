import Foundation
import Synchronization

/// A Redis client for one server or a Redis Cluster, over hiredis.
///
/// On first use the client asks a seed node for `CLUSTER SLOTS`: a server with cluster support
/// disabled is used as a single node; otherwise commands are routed to the primary that serves
/// their key's hash slot, following `MOVED` (the slot map is then refreshed) and `ASK` (the
/// command is re-sent after `ASKING`) redirections, at most 5 per call.
///
/// A cluster that loses a node is ridden out within the command timeout: when the node of a
/// slot refuses connections, or a connection to it is lost (the command may then run twice,
/// so send only commands that are safe to repeat), the slot map is asked anew from another
/// node and the command re-sent to the slot's owner. While the cluster still names the node
/// that cannot be reached (its replica not promoted yet), or answers `CLUSTERDOWN`, the client
/// asks again after pauses of 10 ms doubling to 250 ms, until ``RedisConfiguration/commandTimeout``
/// has passed since the first pause; then the call fails. When no node answers at all, it fails
/// at once. A lost connection also closes the node's idle connections (a restarted node's are
/// all stale).
///
/// Connections are pooled per node (``RedisConfiguration/maximumConnectionsPerNode``); the
/// blocking hiredis calls run on one serial dispatch queue per connection, never on Swift's
/// cooperative threads. Each call is bounded by the configured timeouts; cancelling the calling
/// task does not interrupt a call in flight.
///
/// Error replies are returned as ``RedisReply/error(_:)``, not thrown: only transport failures,
/// timeouts and cluster trouble throw ``RedisError``.
package final class RedisClient: Sendable {
    /// At most this many redirections (MOVED, ASK, TRYAGAIN, a node that cannot be reached) per
    /// call, so a cluster in flux cannot keep a caller forever.
    package static let maximumRedirections = 5

    /// The configuration the client was made with.
    package let configuration: RedisConfiguration
    private let topology = Mutex<RedisTopology>(.unknown)
    private let pools = Mutex<[RedisEndpoint: RedisNodePool]>([:])
    private let closed = Atomic<Bool>(false)

    /// A client for `configuration`. Nothing connects until the first command.
    package init(_ configuration: RedisConfiguration) {
        self.configuration = configuration
    }

    deinit { close() }

    /// Sends one command and returns its reply.
    ///
    /// - Parameters:
    ///   - arguments: the command and its arguments, e.g. `["SET", key, value]` as bytes.
    ///   - key: the key that routes the command to its node in a cluster (ignored on a single
    ///     node); `nil` for a keyless command, which goes to any primary.
    /// - Returns: the reply; an error reply is `.error(message)` (redirections excepted).
    /// - Throws: ``RedisError/connectionFailed(endpoint:reason:)`` (not sent),
    ///   ``RedisError/timeout`` and ``RedisError/connectionLost`` (may have run),
    ///   ``RedisError/protocolError(_:)``, ``RedisError/server(_:)`` (topology discovery refused,
    ///   e.g. `NOAUTH`), ``RedisError/clusterDown(_:)`` (also when the cluster still refuses
    ///   once the command timeout has passed), ``RedisError/tooManyRedirections``.
    package func send(_ arguments: [Data], key: Data?) async throws(RedisError) -> RedisReply {
        try await execute([arguments], key: key)[0]
    }

    /// Sends `commands` in one pipeline (one write, then all replies read) and returns their
    /// replies in order.
    ///
    /// In a cluster every command must address keys of the slot of `key` (use a `{hashtag}`).
    /// Commands answered `MOVED` are re-sent to the new owner after the slot map is refreshed;
    /// commands answered `ASK` are re-sent to the importing node, each after `ASKING`. Commands
    /// that got a real reply are not re-sent, so a redirection never runs a command twice.
    ///
    /// - Throws: as ``send(_:key:)``; the whole call fails if the exchange fails.
    package func pipeline(_ commands: [[Data]], key: Data) async throws(RedisError) -> [RedisReply] {
        try await execute(commands, key: key)
    }

    /// Sends one command to the single node, or to every primary of a cluster (for `INFO`,
    /// `DBSIZE`, `SCAN`, `FLUSHALL`), and returns the replies: one on a single node, one per
    /// primary in a cluster, ordered by host and port.
    ///
    /// - Throws: as ``send(_:key:)``, when any primary fails.
    package func sendToEachPrimary(_ arguments: [Data]) async throws(RedisError) -> [RedisReply] {
        try check([arguments])
        switch try await currentTopology() {
        case .unknown:
            throw .protocolError("topology unknown")
        case .single(let endpoint):
            return try await pool(for: endpoint).send([arguments])
        case .cluster(let map):
            var replies: [RedisReply] = []
            for endpoint in map.primaries.sorted() {
                replies.append(contentsOf: try await pool(for: endpoint).send([arguments]))
            }
            return replies
        }
    }

    /// Closes all idle connections, and the others when their call ends; later calls fail with
    /// ``RedisError/connectionFailed(endpoint:reason:)``. Idempotent.
    package func close() {
        closed.store(true, ordering: .sequentiallyConsistent)
        let all = pools.withLock { pools in
            defer { pools = [:] }
            return Array(pools.values)
        }
        for pool in all { pool.close() }
    }

    /// The slot map in use, or `nil` before discovery and on a single node (for diagnostics and
    /// tests).
    var currentSlotMap: SlotMap? {
        if case .cluster(let map) = topology.withLock({ $0 }) { return map }
        return nil
    }

    // MARK: - Routing

    private func execute(_ commands: [[Data]], key: Data?) async throws(RedisError) -> [RedisReply] {
        try check(commands)
        guard !commands.isEmpty else { return [] }
        let map: SlotMap
        switch try await currentTopology() {
        case .unknown:
            throw .protocolError("topology unknown")
        case .single(let endpoint):
            return try await pool(for: endpoint).send(commands)
        case .cluster(let current):
            map = current
        }
        let slot = key.map(ClusterSlot.hashSlot(for:))
        func owner(in map: SlotMap) -> RedisEndpoint? {
            slot.flatMap(map.primary(forSlot:)) ?? (slot == nil ? map.primaries.first : nil)
        }
        guard var target = owner(in: map) else {
            throw .clusterDown(slot.map { "no node serves slot \($0)" } ?? "the cluster serves no slot")
        }
        var results = [RedisReply?](repeating: nil, count: commands.count)
        var pending = Array(commands.indices)
        var asking = false
        var redirections = 0
        var failover = FailoverWait(budget: configuration.commandTimeout)
        while true {
            let batch = pending.map { commands[$0] }
            let replies: [RedisReply]
            do {
                if asking {
                    let prefixed = batch.flatMap { [[Data("ASKING".utf8)], $0] }
                    replies = try await pool(for: target).send(prefixed).enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
                } else {
                    replies = try await pool(for: target).send(batch)
                }
            } catch {
                // A node that refuses connections, or one whose connection broke (its process
                // died, or it restarted and the pooled connection is stale): learn the map anew
                // and send again. A timeout is not retried: the node may only be slow, and the
                // caller's time is spent.
                guard error.kind == .connectionFailed || error.kind == .connectionLost else { throw error }
                let fresh: SlotMap
                do {
                    fresh = try await refreshSlotMap(preferring: nil, avoiding: error.kind == .connectionFailed ? target : nil)
                } catch _ {
                    throw error  // no node answers: the cluster is gone, not failing over
                }
                guard let next = owner(in: fresh) else { throw error }
                if next != target || error.kind == .connectionLost {
                    // Another owner (a failover done), or a lost connection: at once, on a new
                    // connection (the pool dropped the others to that node).
                    redirections += 1
                    guard redirections <= Self.maximumRedirections else { throw error }
                    if next != target { asking = false }
                    target = next
                } else {
                    // The cluster still names the node that cannot be reached: its failover is
                    // not done yet. Wait for it, within the command timeout.
                    try await failover.pause(else: error)
                }
                continue
            }

            var redirected: [Int] = []
            var moved: RedisEndpoint?
            var askTarget: RedisEndpoint?
            var tryAgain = false
            var clusterDown: String?
            for (index, reply) in zip(pending, replies) {
                results[index] = reply
                guard case .error(let message) = reply,
                      let redirect = RedirectReply(errorMessage: message, replyHost: target.host)
                else { continue }
                switch redirect {
                case .clusterDown(let message):
                    clusterDown = message
                case .moved(let movedSlot, let endpoint):
                    moved = endpoint
                    learn(slot: movedSlot, endpoint: endpoint)
                case .ask(_, let endpoint):
                    askTarget = endpoint
                case .tryAgain:
                    tryAgain = true
                }
                redirected.append(index)
            }
            if redirected.isEmpty { return results.map { $0! } }
            pending = redirected
            if let clusterDown {
                // The cluster refuses while a failing node is not yet replaced (or a slot has no
                // node at all): ask again, within the command timeout, where the map now says.
                try await failover.pause(else: .clusterDown(clusterDown))
                if let fresh = try? await refreshSlotMap(preferring: nil, avoiding: nil), let next = owner(in: fresh) {
                    if next != target { asking = false }
                    target = next
                }
                continue
            }
            redirections += 1
            guard redirections <= Self.maximumRedirections else { throw .tooManyRedirections }
            if let moved {
                _ = try? await refreshSlotMap(preferring: moved, avoiding: nil)
                if let movedSlot = slot { learn(slot: movedSlot, endpoint: moved) }
                target = moved
                asking = false
            } else if let askTarget {
                target = askTarget
                asking = true
            } else if tryAgain {
                try? await Task.sleep(for: .milliseconds(25))
            }
        }
    }

    /// The wait for a failover within one call: pauses of 10 ms, doubling up to 250 ms, until
    /// the budget (the command timeout) from the first pause has passed.
    private struct FailoverWait {
        let budget: Duration
        var deadline: ContinuousClock.Instant?
        var interval: Duration = .milliseconds(10)

        init(budget: Duration) { self.budget = budget }

        /// Sleeps for the next pause, or throws `error` when the budget is spent.
        mutating func pause(else error: RedisError) async throws(RedisError) {
            let now = ContinuousClock.now
            let deadline = self.deadline ?? now + budget
            self.deadline = deadline
            guard now < deadline else { throw error }
            try? await Task.sleep(for: min(interval, deadline - now))
            interval = min(interval * 2, .milliseconds(250))
        }
    }

    /// Records a `MOVED` answer in the current map at once, so concurrent callers use it too.
    private func learn(slot: Int, endpoint: RedisEndpoint) {
        topology.withLock { topology in
            guard case .cluster(var map) = topology else { return }
            map.assign(slot...slot, to: endpoint)
            topology = .cluster(map)
        }
    }

    private func check(_ commands: [[Data]]) throws(RedisError) {
        if closed.load(ordering: .sequentiallyConsistent) {
            throw .connectionFailed(endpoint: configuration.endpoints.first ?? RedisEndpoint(host: "", port: 0),
                                    reason: "the client is closed")
        }
        if commands.contains(where: \.isEmpty) { throw .protocolError("a command needs at least its name") }
    }

    // MARK: - Topology

    /// The topology, probing the seeds on first use.
    private func currentTopology() async throws(RedisError) -> RedisTopology {
        let known = topology.withLock { $0 }
        if case .unknown = known {
            return try await discover(candidates: configuration.endpoints)
        }
        return known
    }

    /// Asks `candidates` in turn for `CLUSTER SLOTS` until one answers; stores and returns the
    /// topology it describes.
    private func discover(candidates: [RedisEndpoint]) async throws(RedisError) -> RedisTopology {
        var lastError = RedisError.invalidURL("no endpoint configured")
        for endpoint in candidates {
            let reply: RedisReply
            do {
                reply = try await pool(for: endpoint).send([[Data("CLUSTER".utf8), Data("SLOTS".utf8)]])[0]
            } catch {
                switch error.kind {
                case .connectionFailed, .connectionLost, .timeout:
                    lastError = error
                    continue
                default:
                    throw error
                }
            }
            let found = try RedisTopology(clusterSlotsReply: reply, from: endpoint)
            if case .single = found, configuration.endpoints.count > 1 {
                // Several servers that are not a cluster: using whichever answers first would
                // split a fleet whose hosts list them in different orders.
                throw .invalidURL("\(configuration.endpoints.count) servers were given, but \(endpoint) is not in a Redis Cluster; give one server, or the seed nodes of a cluster")
            }
            topology.withLock { $0 = found }
            return found
        }
        throw lastError
    }

    /// Reloads the slot map from `preferring` first, then the known primaries and the seeds.
    @discardableResult
    private func refreshSlotMap(preferring: RedisEndpoint?, avoiding: RedisEndpoint?) async throws(RedisError) -> SlotMap {
        var candidates: [RedisEndpoint] = preferring.map { [$0] } ?? []
        if case .cluster(let map) = topology.withLock({ $0 }) { candidates += map.primaries }
        candidates += configuration.endpoints
        var seen = Set<RedisEndpoint>()
        candidates = candidates.filter { $0 != avoiding && seen.insert($0).inserted }
        guard case .cluster(let map) = try await discover(candidates: candidates) else {
            throw .protocolError("a cluster node now reports cluster support disabled")
        }
        return map
    }

    private func pool(for endpoint: RedisEndpoint) -> RedisNodePool {
        pools.withLock { pools in
            if let pool = pools[endpoint] { return pool }
            let pool = RedisNodePool(endpoint: endpoint, configuration: configuration)
            pools[endpoint] = pool
            return pool
        }
    }
}
