/// Which primary serves each of the 16384 hash slots of a Redis Cluster.
package struct SlotMap: Sendable, Equatable {
    /// The primaries, in a stable order; `owners` holds indices into it.
    package private(set) var primaries: [RedisEndpoint]
    private var owners: [Int16]

    /// A map where no slot is served.
    package init() {
        primaries = []
        owners = Array(repeating: -1, count: ClusterSlot.count)
    }

    /// The map described by a `CLUSTER SLOTS` reply: an array of
    /// `[start, end, [host, port, id, …], replicas…]` ranges.
    ///
    /// - Parameter replyHost: stands in for an empty or `?` host (a node that does not know its
    ///   own address): the node that answered.
    /// - Throws: ``RedisError/protocolError(_:)`` when the reply does not have that shape.
    package init(clusterSlotsReply reply: RedisReply, replyHost: String) throws(RedisError) {
        self.init()
        guard case .array(let ranges) = reply else { throw .protocolError("CLUSTER SLOTS: not an array") }
        for range in ranges {
            guard case .array(let fields) = range, fields.count >= 3,
                  let start = fields[0].integer, let end = fields[1].integer,
                  0 <= start, start <= end, end < ClusterSlot.count,
                  case .array(let node) = fields[2], node.count >= 2,
                  let host = node[0].string, let port = node[1].integer, (1...65535).contains(port)
            else { throw .protocolError("CLUSTER SLOTS: malformed slot range") }
            let endpoint = RedisEndpoint(host: host.isEmpty || host == "?" ? replyHost : host, port: Int(port))
            assign(Int(start)...Int(end), to: endpoint)
        }
    }

    /// The primary serving `slot`, or `nil` when no node does.
    package func primary(forSlot slot: Int) -> RedisEndpoint? {
        guard (0..<ClusterSlot.count).contains(slot) else { return nil }
        let owner = Int(owners[slot])
        return owner >= 0 ? primaries[owner] : nil
    }

    /// Whether every slot has a primary.
    package var coversAllSlots: Bool { !owners.contains(-1) }

    /// Records that `slots` are served by `endpoint` (from `CLUSTER SLOTS`, or a `MOVED` reply).
    package mutating func assign(_ slots: ClosedRange<Int>, to endpoint: RedisEndpoint) {
        let index: Int
        if let known = primaries.firstIndex(of: endpoint) {
            index = known
        } else {
            primaries.append(endpoint)
            index = primaries.count - 1
        }
        for slot in slots where (0..<ClusterSlot.count).contains(slot) { owners[slot] = Int16(index) }
        let used = Set(owners).subtracting([-1])
        if used.count != primaries.count { compact(used: used) }
    }

    /// Drops primaries that no longer serve a slot (after a `MOVED` took a node's last one).
    private mutating func compact(used: Set<Int16>) {
        let kept = primaries.indices.filter { used.contains(Int16($0)) }
        var remap = [Int16](repeating: -1, count: primaries.count)
        for (new, old) in kept.enumerated() { remap[old] = Int16(new) }
        primaries = kept.map { primaries[$0] }
        owners = owners.map { $0 < 0 ? -1 : remap[Int($0)] }
    }
}
