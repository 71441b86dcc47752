import Foundation

/// A real three-primary Redis Cluster on `127.0.0.1`, with or without replicas, for the Redis
/// client's cluster tests.
///
/// `redis-server`s with `--cluster-enabled yes` (and the node timeout given, 2000 ms by default)
/// are joined with `redis-cli --cluster create … --cluster-replicas N --cluster-yes`, which
/// spreads the 16384 slots evenly over the first three and makes the others their replicas;
/// the initializer returns once every node reports `cluster_state:ok` and every replica is in
/// sync with its primary.
///
/// Slots can be migrated live, as `redis-cli --cluster reshard` does: ``migrateSlot(_:to:)`` in
/// one go, or step by step (``beginSlotMigration(_:to:)``, ``moveKeys(_:of:)``,
/// ``finishSlotMigration(_:)``) to observe `ASK` redirections in between. Nodes can be lost:
/// ``RedisServer/kill()`` crashes one (SIGKILL), ``failOver(to:mode:)`` promotes a replica, and
/// ``restart(_:)`` brings a node back empty.
public final class RedisCluster: Sendable {
    /// The redis-cli binary used to create the cluster: `/usr/bin/redis-cli` (Debian `redis-tools`).
    public static let cliBinary = "/usr/bin/redis-cli"

    /// Whether both `redis-server` and `redis-cli` are installed; use with `.enabled(if:)`.
    public static var isAvailable: Bool {
        RedisServer.isAvailable && FileManager.default.isExecutableFile(atPath: cliBinary)
    }

    /// Every node, as created: the three first primaries, then the replicas. Roles change on a
    /// failover: ask ``primaries()`` and ``replica(of:)``.
    public let nodes: [RedisServer]

    /// How the replica takes over in ``failOver(to:mode:)``: `CLUSTER FAILOVER` and its options.
    public enum FailoverMode: String, Sendable {
        /// No option: coordinated with a running primary, no write lost.
        case coordinated = ""
        /// `FORCE`: without the primary (it is down), with the other primaries' votes.
        case force = "FORCE"
        /// `TAKEOVER`: without the primary and without votes.
        case takeover = "TAKEOVER"
    }

    /// A slot migration in progress: the slot is `MIGRATING` on `source` and `IMPORTING` on
    /// `target`.
    public struct SlotMigration: Sendable {
        /// The hash slot.
        public var slot: Int
        /// The node that served the slot.
        public var source: RedisServer
        /// The node that will.
        public var target: RedisServer
    }

    /// Starts the nodes, creates the cluster and waits (up to 30 s) until it is `ok` everywhere
    /// and every replica is in sync.
    ///
    /// - Parameters:
    ///   - replicasPerPrimary: replicas of each of the three primaries; 0 by default.
    ///   - nodeTimeout: `cluster-node-timeout` in milliseconds, after which an unreachable node
    ///     is failing and its replica may take over; 2000 by default.
    /// - Throws: ``TestServerError/unavailable(_:)`` without the binaries;
    ///   ``TestServerError/failedToStart(_:)`` when a node or the cluster does not come up.
    public init(replicasPerPrimary: Int = 0, nodeTimeout: Int = 2000) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.cliBinary) else { throw TestServerError.unavailable(Self.cliBinary) }
        let arguments = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "\(nodeTimeout)"]
        var nodes: [RedisServer] = []
        for _ in 0..<(3 * (1 + max(0, replicasPerPrimary))) { nodes.append(try RedisServer(extraArguments: arguments)) }
        self.nodes = nodes

        let create = Process()
        create.executableURL = URL(fileURLWithPath: Self.cliBinary)
        create.arguments = ["--cluster", "create"] + nodes.map(\.address) + ["--cluster-replicas", "\(max(0, replicasPerPrimary))", "--cluster-yes"]
        let output = Pipe()
        create.standardOutput = output
        create.standardError = output
        create.standardInput = FileHandle.nullDevice
        try create.run()
        let log = output.fileHandleForReading.readDataToEndOfFile()
        guard LoopbackHTTP.waitForExit(create) == 0 else {
            stop()
            throw TestServerError.failedToStart("redis-cli --cluster create: \(String(decoding: log, as: UTF8.self).suffix(2000))")
        }
        guard waitUntil(seconds: 30, { self.isOK() && self.replicasInSync() }) else {
            stop()
            throw TestServerError.failedToStart("the cluster did not reach cluster_state:ok with its replicas in sync")
        }
    }

    deinit { stop() }

    /// `redis://` and every node's address, comma-separated (`127.0.0.1:p1,127.0.0.1:p2,…`).
    public var seedURL: String { "redis://" + nodes.map(\.address).joined(separator: ",") }

    /// Whether every running node reports `cluster_state:ok` and knows all slots.
    public func isOK() -> Bool {
        running.allSatisfy { node in
            guard let info = (try? node.command(["CLUSTER", "INFO"], timeout: 1))?.text else { return false }
            return info.contains("cluster_state:ok") && info.contains("cluster_slots_assigned:16384")
        }
    }

    /// The nodes whose process runs.
    public var running: [RedisServer] { nodes.filter { $0.processIdentifier != nil } }

    /// The running nodes that are primaries now (`ROLE`), in ``nodes`` order.
    public func primaries() -> [RedisServer] {
        running.filter { node in
            guard case .array(let role?) = try? node.command(["ROLE"], timeout: 2), let first = role.first else { return false }
            return first.text == "master"
        }
    }

    /// The running replica of `primary` (`ROLE` names its port), if any.
    public func replica(of primary: RedisServer) -> RedisServer? {
        running.first { node in
            guard case .array(let role?) = try? node.command(["ROLE"], timeout: 2), role.count >= 3,
                  role[0].text == "slave", case .integer(let port) = role[2] else { return false }
            return port == primary.port
        }
    }

    /// Whether every running replica's link to its primary is up (`master_link_status:up`).
    public func replicasInSync() -> Bool {
        running.allSatisfy { node in
            guard let info = (try? node.command(["INFO", "replication"], timeout: 1))?.text else { return false }
            return info.contains("role:master") || info.contains("master_link_status:up")
        }
    }

    /// Makes `replica` the primary of its primary's slots with `CLUSTER FAILOVER` (after a
    /// ``RedisServer/kill()`` of the primary: ``FailoverMode/force`` or
    /// ``FailoverMode/takeover``), then ``awaitPromotion(of:)``.
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)`` when the command is refused or the
    ///   promotion is not seen in time.
    public func failOver(to replica: RedisServer, mode: FailoverMode) throws {
        let reply = try replica.command(["CLUSTER", "FAILOVER"] + (mode == .coordinated ? [] : [mode.rawValue]))
        guard reply == .status("OK") else { throw TestServerError.requestFailed("CLUSTER FAILOVER \(mode.rawValue): \(reply)") }
        try awaitPromotion(of: replica)
    }

    /// Waits (up to 30 s) until `replica` is a primary that serves slots, every running node
    /// names the same owners, and the cluster is `ok`: after ``failOver(to:mode:)``, or after a
    /// ``RedisServer/kill()`` of its primary, once the node timeout has passed and the replica
    /// won the election.
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)`` when that is not seen in time.
    public func awaitPromotion(of replica: RedisServer) throws {
        let promoted = waitUntil(seconds: 30) {
            guard case .array(let role?) = try? replica.command(["ROLE"], timeout: 2), role.first?.text == "master",
                  case .array(let ranges?) = try? replica.command(["CLUSTER", "SLOTS"], timeout: 2) else { return false }
            let own = ranges.contains { range in
                guard case .array(let fields?) = range, fields.count >= 3, case .array(let primary?) = fields[2],
                      primary.count >= 2, case .integer(let port) = primary[1] else { return false }
                return port == replica.port
            }
            return own && self.isOK() && self.agreeOnSlots()
        }
        guard promoted else { throw TestServerError.requestFailed("\(replica.address) was not promoted within 30 s") }
    }

    /// Starts `node` again on its port after a ``RedisServer/kill()`` or ``RedisServer/stop()``:
    /// empty (persistence is off) but with its `nodes.conf`, so it rejoins as itself (a primary
    /// whose replica took over comes back as that replica's replica). Waits (up to 30 s) until
    /// the cluster is `ok` and in sync.
    ///
    /// - Throws: ``TestServerError/failedToStart(_:)``.
    public func restart(_ node: RedisServer) throws {
        try node.start()
        guard waitUntil(seconds: 30, { self.isOK() && self.replicasInSync() && self.agreeOnSlots() }) else {
            throw TestServerError.failedToStart("\(node.address) did not rejoin the cluster within 30 s")
        }
    }

    /// Whether every running node's `CLUSTER SLOTS` names the same primaries for the same ranges.
    public func agreeOnSlots() -> Bool {
        let views: [[String]] = running.map { node in
            guard case .array(let ranges?) = try? node.command(["CLUSTER", "SLOTS"], timeout: 2) else { return ["?"] }
            return ranges.compactMap { range -> String? in
                guard case .array(let fields?) = range, fields.count >= 3, case .integer(let start) = fields[0],
                      case .array(let primary?) = fields[2], primary.count >= 2, case .integer(let port) = primary[1]
                else { return nil }
                return "\(start):\(port)"
            }.sorted()
        }
        return Set(views).count == 1 && views.first != ["?"]
    }

    /// Polls `condition` every 50 ms for up to `seconds`; whether it held. Blocking: call it
    /// through ``offPool(_:)`` from an `async` test.
    public func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { return false }
            usleep(50_000)
        }
        return true
    }

    /// The node id (`CLUSTER MYID`) of `node`.
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)``.
    public func nodeID(of node: RedisServer) throws -> String {
        guard let id = try node.command(["CLUSTER", "MYID"]).text else { throw TestServerError.requestFailed("CLUSTER MYID") }
        return id
    }

    /// The node that serves `slot`, as the first node's `CLUSTER SLOTS` tells.
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)``.
    public func owner(ofSlot slot: Int) throws -> RedisServer {
        for node in nodes where node.processIdentifier != nil {
            guard case .array(let ranges?) = try node.command(["CLUSTER", "SLOTS"]) else { continue }
            for case .array(let fields?) in ranges {
                guard fields.count >= 3, case .integer(let start) = fields[0], case .integer(let end) = fields[1],
                      (start...end).contains(slot), case .array(let primary?) = fields[2], primary.count >= 2,
                      case .integer(let port) = primary[1], let owner = nodes.first(where: { $0.port == port })
                else { continue }
                return owner
            }
        }
        throw TestServerError.requestFailed("no node serves slot \(slot)")
    }

    /// Migrates `slot` with its keys to `target`, live: IMPORTING / MIGRATING, `MIGRATE` of every
    /// key (`CLUSTER GETKEYSINSLOT`), then `SETSLOT … NODE` on every node. Does nothing when
    /// `target` already serves it.
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)`` when a step is refused.
    public func migrateSlot(_ slot: Int, to target: RedisServer) throws {
        guard try owner(ofSlot: slot).port != target.port else { return }
        let migration = try beginSlotMigration(slot, to: target)
        try moveAllKeys(of: migration)
        try finishSlotMigration(migration)
    }

    /// Starts moving `slot` to `target`: `CLUSTER SETSLOT slot IMPORTING source` on the target,
    /// then `MIGRATING target` on the source. Keys not yet moved are still served by the source;
    /// moved ones are answered `ASK` there.
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)`` when a step is refused or `target` already
    ///   serves the slot.
    public func beginSlotMigration(_ slot: Int, to target: RedisServer) throws -> SlotMigration {
        let source = try owner(ofSlot: slot)
        guard source.port != target.port else { throw TestServerError.requestFailed("slot \(slot) is already on the target") }
        try expectOK(target.command(["CLUSTER", "SETSLOT", "\(slot)", "IMPORTING", try nodeID(of: source)]))
        try expectOK(source.command(["CLUSTER", "SETSLOT", "\(slot)", "MIGRATING", try nodeID(of: target)]))
        return SlotMigration(slot: slot, source: source, target: target)
    }

    /// Moves `keys` (of the migrating slot) from the source to the target with `MIGRATE`.
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)`` when `MIGRATE` fails.
    public func moveKeys(_ keys: [String], of migration: SlotMigration) throws {
        guard !keys.isEmpty else { return }
        let reply = try migration.source.command(["MIGRATE", "127.0.0.1", "\(migration.target.port)", "", "0", "5000", "KEYS"] + keys)
        if case .error(let message) = reply { throw TestServerError.requestFailed("MIGRATE: \(message)") }
    }

    /// Moves every key left in the migrating slot (`CLUSTER GETKEYSINSLOT`, 100 at a time).
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)``.
    public func moveAllKeys(of migration: SlotMigration) throws {
        while true {
            guard case .array(let keys?) = try migration.source.command(["CLUSTER", "GETKEYSINSLOT", "\(migration.slot)", "100"])
            else { throw TestServerError.requestFailed("CLUSTER GETKEYSINSLOT") }
            let names = keys.compactMap(\.text)
            if names.isEmpty { return }
            try moveKeys(names, of: migration)
        }
    }

    /// Ends a migration: `CLUSTER SETSLOT slot NODE target` on the target, the source, then the
    /// other nodes, so every node agrees at once.
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)``.
    public func finishSlotMigration(_ migration: SlotMigration) throws {
        let targetID = try nodeID(of: migration.target)
        let others = primaries().filter { $0.port != migration.target.port && $0.port != migration.source.port }
        for node in [migration.target, migration.source] + others {
            try expectOK(node.command(["CLUSTER", "SETSLOT", "\(migration.slot)", "NODE", targetID]))
        }
    }

    /// Stops every node (their directories go when the nodes are released).
    public func stop() {
        for node in nodes { node.stop() }
    }

    private func expectOK(_ reply: RedisWireReply) throws {
        guard reply == .status("OK") else { throw TestServerError.requestFailed("expected OK, got \(reply)") }
    }
}
