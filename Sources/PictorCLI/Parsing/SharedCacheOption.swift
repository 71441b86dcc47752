import Foundation
import Pictor

/// `--shared-cache URL` (or `PICTOR_SHARED_CACHE`): the Redis shared fleet tier.
struct SharedCacheOption {
    /// The Redis URL, when given.
    var url: String?

    static let environmentVariable = "PICTOR_SHARED_CACHE"

    static let help = """
      --shared-cache URL    share originals with other processes through Redis
                            (default $PICTOR_SHARED_CACHE):
                            redis://[[user]:password@]host[:port][/db]
                            [?command_timeout=200ms&connect_timeout=50ms],
                            or a Redis Cluster's seeds redis://h1:p1,h2:p2;
                            sealed with --key-file's key when given. Redis
                            trouble never fails a load
    """

    static func parse(_ parser: inout ArgumentParser, context: CommandContext) throws -> SharedCacheOption {
        let given = try parser.option("--shared-cache")
        if let given, given.isEmpty { throw CLIError.usage("empty value for '--shared-cache'") }
        let fromEnvironment = context.environment[environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
        return SharedCacheOption(url: given ?? fromEnvironment)
    }

    /// The tier, or `nil` when no URL was given.
    /// - Throws: ``CLIError/usage(_:)`` for a URL that is not a Redis URL.
    /// - Parameter connections: connections per Redis node: one per image in flight, so that
    ///   no load waits for another's round trip.
    func open(key: EncryptionKey?, connections: Int = 4) throws -> RedisSharedCache? {
        guard let url else { return nil }
        do {
            var configuration = try RedisConfiguration(url: url)
            configuration.maximumConnectionsPerNode = max(configuration.maximumConnectionsPerNode, connections)
            return try RedisSharedCache(configuration: configuration, masterKey: key)
        } catch {
            throw CLIError.usage("invalid value for '--shared-cache' (or \(Self.environmentVariable)): \(error)")
        }
    }
}
