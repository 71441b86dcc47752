/// What the configured servers turned out to be, learnt with `CLUSTER SLOTS` on first use.
enum RedisTopology: Sendable {
    /// Not probed yet.
    case unknown
    /// One server (cluster support disabled): every command goes to it.
    case single(RedisEndpoint)
    /// A Redis Cluster: commands go to the primary of their key's slot.
    case cluster(SlotMap)

    /// Reads a `CLUSTER SLOTS` reply from `endpoint`.
    ///
    /// - Throws: ``RedisError/server(_:)`` for an error reply other than "cluster support
    ///   disabled" (e.g. `NOAUTH`); ``RedisError/protocolError(_:)`` for a malformed map.
    init(clusterSlotsReply reply: RedisReply, from endpoint: RedisEndpoint) throws(RedisError) {
        switch reply {
        case .error(let message) where message.localizedLowercaseContains("cluster support disabled"):
            self = .single(endpoint)
        case .error(let message):
            throw .server(message)
        default:
            self = .cluster(try SlotMap(clusterSlotsReply: reply, replyHost: endpoint.host))
        }
    }
}

private extension String {
    func localizedLowercaseContains(_ part: String) -> Bool { lowercased().contains(part) }
}
