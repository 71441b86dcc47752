import Foundation
import Pictor

/// `--shared-cache URL` (or `PICTOR_SHARED_CACHE`): the Redis shared fleet tier.
struct SharedCacheOption {
    /// The Redis URL, when given.
    var url: String?

    static let environmentVariable = "PICTOR_SHARED_CACHE"

    static func parse(_ parser: inout ArgumentParser, context: CommandContext) throws -> SharedCacheOption {
        let given = try parser.option(.sharedCache)
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
