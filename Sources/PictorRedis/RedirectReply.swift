/// What a Redis Cluster error reply asks the client to do instead of returning it.
package enum RedirectReply: Sendable, Equatable {
    /// `MOVED <slot> <host>:<port>`: the slot now lives on `endpoint` for good; refresh the slot
    /// map and re-send there.
    case moved(slot: Int, endpoint: RedisEndpoint)
    /// `ASK <slot> <host>:<port>`: the slot is being migrated and this key already left; re-send
    /// this one command to `endpoint`, preceded by `ASKING`, without changing the map.
    case ask(slot: Int, endpoint: RedisEndpoint)
    /// `TRYAGAIN …`: a multi-key command met a slot in mid-migration; retry shortly.
    case tryAgain
    /// `CLUSTERDOWN …`: the cluster does not serve this slot now.
    case clusterDown(String)

    /// The redirection an error reply (without its leading `-`) asks for, or `nil` for an
    /// ordinary error reply that goes back to the caller.
    ///
    /// - Parameter replyHost: the host used for an address with an empty host (`MOVED 3999 :6381`,
    ///   which Redis 7 sends when the node does not know its own address): the node that answered.
    package init?(errorMessage message: String, replyHost: String) {
        let words = message.split(separator: " ", omittingEmptySubsequences: true)
        guard let kind = words.first else { return nil }
        switch kind {
        case "MOVED", "ASK":
            guard words.count == 3, let slot = Int(words[1]), (0..<ClusterSlot.count).contains(slot),
                  let colon = words[2].lastIndex(of: ":"), let port = Int(words[2][words[2].index(after: colon)...]),
                  (1...65535).contains(port)
            else { return nil }
            var host = String(words[2][..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            if host.isEmpty { host = replyHost }
            let endpoint = RedisEndpoint(host: host, port: port)
            self = kind == "MOVED" ? .moved(slot: slot, endpoint: endpoint) : .ask(slot: slot, endpoint: endpoint)
        case "TRYAGAIN":
            self = .tryAgain
        case "CLUSTERDOWN":
            self = .clusterDown(message)
        default:
            return nil
        }
    }
}
