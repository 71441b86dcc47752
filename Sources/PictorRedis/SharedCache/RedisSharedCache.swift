import Foundation
import PictorCore
import PictorCrypto

/// The shared fleet tier on Redis (a single server or a Redis Cluster): many processes on many
/// hosts share one cache of original image bytes, optionally sealed so that the Redis operator
/// can read nothing, and coordinate downloads with leases so that a fleet fetches each URL once.
///
/// ```swift
/// var configuration = ImagePipeline.Configuration.default
/// configuration.sharedCache = try RedisSharedCache(url: "redis://cache.internal:6379", masterKey: key)
/// ```
///
/// Names and values are described by the tier's format (entry and lease share a Cluster hash
/// slot; values carry SHA-256 of their cache key, sealed with AES-256-GCM under a key derived
/// from `masterKey`). Entries expire after the time to live the pipeline passes (`SET … PX`);
/// give the Redis `maxmemory` and `maxmemory-policy allkeys-lru` so that it evicts the least
/// recently used images when full (with `noeviction`, writes fail with `OOM` and are counted as
/// errors; reads go on).
///
/// Every operation is bounded by ``RedisConfiguration/connectTimeout`` and
/// ``RedisConfiguration/commandTimeout`` and throws ``RedisError`` when Redis cannot answer; the
/// pipeline treats that as a miss (see ``/PictorCore/SharedDataCache``).
public final class RedisSharedCache: SharedDataCache, Sendable {
    /// The Redis servers and their timeouts.
    public let redis: RedisConfiguration
    let client: RedisClient
    let codec: SharedEntryCodec
    let statisticsName: String

    /// Set-if-absent that a re-sent call cannot turn against its sender: `OK` when the lease
    /// was free or already held by this token (`ARGV[1]`), nil when another token holds it.
    /// A full Redis refuses the `SET` with `OOM`, as it refuses `SET NX`.
    private static let acquireScript = Data("""
        local holder = redis.call('get', KEYS[1])
        if holder == false then return redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
        if holder == ARGV[1] then return {ok='OK'} end
        return false
        """.utf8)

    /// Compare-and-delete: only the holder's token releases a lease.
    private static let releaseScript = Data("""
        if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end
        """.utf8)

    /// Connects (lazily, on first use) to the Redis at `url`.
    ///
    /// - Parameters:
    ///   - url: `redis://[[user]:password@]host[:port][/db]`, or a comma-separated list of a
    ///     cluster's seed nodes (see ``RedisConfiguration/init(url:)``).
    ///   - masterKey: seals entries and keys their names (the key of `--key-file`; keys for the
    ///     tier are derived from it under labels of their own); `nil` stores entries in clear
    ///     under SHA-256 names, still bound to their cache keys.
    ///   - namespace: the first part of every Redis name. Default `pictor`.
    /// - Throws: ``RedisError/invalidURL(_:)`` or ``RedisError/unsupported(_:)`` for a bad
    ///   URL; ``RedisError/protocolError(_:)`` when the key cannot be used.
    public convenience init(url: String, masterKey: EncryptionKey? = nil, namespace: String = "pictor") throws(RedisError) {
        try self.init(configuration: RedisConfiguration(url: url), masterKey: masterKey, namespace: namespace)
    }

    /// Connects (lazily, on first use) to the Redis described by `configuration`; see
    /// ``init(url:masterKey:namespace:)``.
    ///
    /// - Parameters:
    ///   - configuration: the servers, credentials, timeouts and pool size.
    ///   - masterKey: seals entries and names when given; see ``init(url:masterKey:namespace:)``.
    ///   - namespace: the first part of every Redis name; `pictor` by default.
    public init(configuration: RedisConfiguration, masterKey: EncryptionKey? = nil, namespace: String = "pictor") throws(RedisError) {
        redis = configuration
        do {
            codec = try SharedEntryCodec(masterKey: masterKey, namespace: namespace)
        } catch {
            throw RedisError.protocolError("cannot derive the shared tier's keys: \(error)")
        }
        client = RedisClient(configuration)
        statisticsName = namespace + ":statistics"
    }

    deinit { client.close() }

    /// Whether entries are sealed with a master key.
    public var isEncrypted: Bool { codec.isEncrypted }

    /// The entry for `key` (`GET`): `nil` when absent, of another Redis type, sealed with another
    /// key, damaged, or stored for another cache key.
    ///
    /// - Throws: ``RedisError`` when Redis cannot answer; ``/PictorCore/SharedDataCacheError/rejected(_:)``
    ///   for a refusal.
    public func entry(for key: String) async throws -> DataCacheEntry? {
        let name = codec.name(for: key)
        switch try await client.send([Data("GET".utf8), Data(name.utf8)], key: Data(name.utf8)) {
        case .bulk(let value):
            return codec.decode(value, for: key)
        case .null:
            return nil
        case .error(let message) where message.hasPrefix("WRONGTYPE"):
            // Something else sits under the entry's name: not an entry.
            return nil
        case .error(let message):
            throw Self.error(message)
        default:
            throw RedisError.protocolError("unexpected reply to GET")
        }
    }

    /// Stores `entry` for `key` (`SET … PX`, the time to live in milliseconds, at least 1).
    ///
    /// - Throws: ``/PictorCore/SharedDataCacheError/rejected(_:)`` when Redis is full (`OOM`);
    ///   ``RedisError`` when it cannot answer.
    public func store(_ entry: DataCacheEntry, for key: String, timeToLive: Duration) async throws {
        let name = codec.name(for: key)
        let value = try codec.encode(entry, for: key)
        let milliseconds = Self.milliseconds(timeToLive)
        let reply = try await client.send(
            [Data("SET".utf8), Data(name.utf8), value, Data("PX".utf8), Data(String(milliseconds).utf8)], key: Data(name.utf8))
        try Self.expectOK(reply, "SET")
    }

    /// Removes the entry for `key` (`DEL`).
    ///
    /// - Throws: ``RedisError`` when Redis cannot answer.
    public func removeEntry(for key: String) async throws {
        let name = codec.name(for: key)
        let reply = try await client.send([Data("DEL".utf8), Data(name.utf8)], key: Data(name.utf8))
        if case .error(let message) = reply { throw Self.error(message) }
    }

    /// Takes `key`'s download lease: `<name>:lease` set to a random token for `duration` when
    /// no process holds it (a script: `SET … PX` when absent).
    ///
    /// - Returns: the lease, or `nil` when another process holds it.
    /// - Throws: ``/PictorCore/SharedDataCacheError/rejected(_:)`` when Redis is full; ``RedisError`` when
    ///   it cannot answer.
    public func acquireLease(for key: String, duration: Duration) async throws -> SharedCacheLease? {
        try await acquireLease(for: key, duration: duration, token: UUID().uuidString)
    }

    /// ``acquireLease(for:duration:)`` with a given token. A lease this token already holds is
    /// taken too: the client re-sends a command whose connection was lost (a failover), and
    /// the first send may have taken the lease; with `SET NX` the second would find it held
    /// "elsewhere" and the process would wait for itself.
    func acquireLease(for key: String, duration: Duration, token: String) async throws -> SharedCacheLease? {
        let name = codec.leaseName(for: key)
        let milliseconds = Self.milliseconds(duration)
        let reply = try await client.send(
            [Data("EVAL".utf8), Self.acquireScript, Data("1".utf8), Data(name.utf8), Data(token.utf8), Data(String(milliseconds).utf8)],
            key: Data(name.utf8))
        switch reply {
        case .status("OK"): return SharedCacheLease(key: key, token: token)
        case .null: return nil
        case .error(let message): throw Self.error(message)
        default: throw RedisError.protocolError("unexpected reply to the lease script")
        }
    }

    /// Whether some process holds `key`'s download lease (`EXISTS`).
    ///
    /// - Throws: ``RedisError`` when Redis cannot answer.
    public func isLeased(_ key: String) async throws -> Bool {
        let name = codec.leaseName(for: key)
        switch try await client.send([Data("EXISTS".utf8), Data(name.utf8)], key: Data(name.utf8)) {
        case .integer(let count): return count > 0
        case .error(let message): throw Self.error(message)
        default: throw RedisError.protocolError("unexpected reply to EXISTS")
        }
    }

    /// Releases `lease` with a compare-and-delete script: a lease that expired and was taken by
    /// another process meanwhile is left alone.
    ///
    /// - Throws: ``RedisError`` when Redis cannot answer.
    public func releaseLease(_ lease: SharedCacheLease) async throws {
        let name = codec.leaseName(for: lease.key)
        let reply = try await client.send(
            [Data("EVAL".utf8), Self.releaseScript, Data("1".utf8), Data(name.utf8), Data(lease.token.utf8)], key: Data(name.utf8))
        if case .error(let message) = reply { throw Self.error(message) }
    }

    /// `duration` in whole milliseconds for `PX`, at least 1 (`PX 0` is an error in Redis).
    static func milliseconds(_ duration: Duration) -> Int {
        max(1, Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000))
    }

    static func expectOK(_ reply: RedisReply, _ command: String) throws {
        switch reply {
        case .status("OK"): return
        case .error(let message): throw error(message)
        default: throw RedisError.protocolError("unexpected reply to \(command)")
        }
    }

    /// An error reply as the pipeline should take it: Redis full (`OOM`) or a key of another type
    /// (`WRONGTYPE`) is a refusal by a healthy server; anything else (`NOAUTH`, `LOADING`,
    /// `READONLY`, …) is a failure of the tier.
    static func error(_ message: String) -> any Error {
        if message.hasPrefix("OOM") || message.hasPrefix("WRONGTYPE") { return SharedDataCacheError.rejected(message) }
        return RedisError.server(message)
    }
}
