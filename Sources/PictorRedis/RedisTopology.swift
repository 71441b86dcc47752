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
    /// One server also answers with an error when its ACL user may not run `CLUSTER SLOTS`
    /// (`NOPERM`: a user given only the commands the shared tier sends) or it has no `CLUSTER`
    /// command (`ERR unknown command`: a Redis-compatible server without cluster support).
    /// Such a server is taken as a single one: in a real cluster, the first `MOVED` reply
    /// makes the client ask for the slot map again and fail with the server's error.
    ///
    /// - Throws: ``RedisError/server(_:)`` for another error reply (e.g. `NOAUTH`);
    ///   ``RedisError/protocolError(_:)`` for a malformed map.
    init(clusterSlotsReply reply: RedisReply, from endpoint: RedisEndpoint) throws(RedisError) {
        switch reply {
        case .error(let message) where message.localizedLowercaseContains("cluster support disabled")
            || message.hasPrefix("NOPERM") || message.localizedLowercaseContains("unknown command"):
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
