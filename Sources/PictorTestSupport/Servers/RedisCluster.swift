import Foundation

/// A real three-primary Redis Cluster (no replicas) on `127.0.0.1`, for the Redis client's
/// cluster tests.
///
/// Three ``RedisServer``s with `--cluster-enabled yes --cluster-node-timeout 2000` are joined with
/// `redis-cli --cluster create … --cluster-replicas 0 --cluster-yes` (which spreads the 16384
/// slots evenly); the initializer returns once every node reports `cluster_state:ok`.
///
/// Slots can be migrated live, as `redis-cli --cluster reshard` does: ``migrateSlot(_:to:)`` in
/// one go, or step by step (``beginSlotMigration(_:to:)``, ``moveKeys(_:of:)``,
/// ``finishSlotMigration(_:)``) to observe `ASK` redirections in between.
public final class RedisCluster: Sendable {
    /// The redis-cli binary used to create the cluster: `/usr/bin/redis-cli` (Debian `redis-tools`).
    public static let cliBinary = "/usr/bin/redis-cli"

    /// Whether both `redis-server` and `redis-cli` are installed; use with `.enabled(if:)`.
    public static var isAvailable: Bool {
        RedisServer.isAvailable && FileManager.default.isExecutableFile(atPath: cliBinary)
    }

    /// The three primaries.
    public let nodes: [RedisServer]

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

    /// Starts three nodes, creates the cluster and waits (up to 20 s) until it is `ok` everywhere.
    ///
    /// - Throws: ``TestServerError/unavailable(_:)`` without the binaries;
    ///   ``TestServerError/failedToStart(_:)`` when a node or the cluster does not come up.
    public init() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.cliBinary) else { throw TestServerError.unavailable(Self.cliBinary) }
        let arguments = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000"]
        var nodes: [RedisServer] = []
        for _ in 0..<3 { nodes.append(try RedisServer(extraArguments: arguments)) }
        self.nodes = nodes

        let create = Process()
        create.executableURL = URL(fileURLWithPath: Self.cliBinary)
        create.arguments = ["--cluster", "create"] + nodes.map(\.address) + ["--cluster-replicas", "0", "--cluster-yes"]
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
        let deadline = Date().addingTimeInterval(20)
        while !isOK() {
            guard Date() < deadline else {
                stop()
                throw TestServerError.failedToStart("the cluster did not reach cluster_state:ok")
            }
            usleep(50_000)
        }
    }

    deinit { stop() }

    /// `redis://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3`.
    public var seedURL: String { "redis://" + nodes.map(\.address).joined(separator: ",") }

    /// Whether every running node reports `cluster_state:ok` and knows all slots.
    public func isOK() -> Bool {
        nodes.allSatisfy { node in
            guard let info = (try? node.command(["CLUSTER", "INFO"], timeout: 1))?.text else { return false }
            return info.contains("cluster_state:ok") && info.contains("cluster_slots_assigned:16384")
        }
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
        let others = nodes.filter { $0.port != migration.target.port && $0.port != migration.source.port }
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
