import Foundation
import PictorCore

/// What `pictor cache stats --shared-cache URL` shows: the Redis side of the shared tier, and
/// the counters every Pictor process added to it.
public struct SharedCacheReport: Sendable, Hashable, Codable {
    /// Primary nodes answering (1 for a single Redis).
    public var primaries = 0
    /// Keys in the database, summed over primaries (entries, leases and the counters).
    public var keys = 0
    /// Memory Redis uses, in bytes, summed over primaries (`used_memory`).
    public var usedMemory = 0
    /// Memory limit per primary, in bytes (`maxmemory`); 0 means none.
    public var maximumMemory = 0
    /// What Redis does when full (`maxmemory-policy`); `allkeys-lru` is the one to use.
    public var evictionPolicy = ""
    /// Keys Redis evicted to stay under its limit, summed over primaries (`evicted_keys`).
    public var evictedKeys = 0
    /// Whether this process's key opens the entries (it is only known per process: the report
    /// tells whether the tier was asked with one).
    public var askedWithKey = false
    /// The counters every Pictor process added with ``RedisSharedCache/record(_:)`` (each
    /// pipeline does so itself as it runs).
    public var fleet = SharedCacheStatistics()

    /// Creates an empty report.
    public init() {}
}

extension RedisSharedCache {
    /// Adds one process's counters to the fleet's (a Redis hash, `<namespace>:statistics`). A
    /// pipeline whose shared cache this is calls it itself (``/PictorCore/SharedDataCache/record(_:)``).
    ///
    /// - Parameter statistics: this process's counters since its last call.
    /// - Throws: ``RedisError`` when Redis cannot answer.
    public func record(_ statistics: SharedCacheStatistics) async throws {
        let fields = Self.fields(of: statistics).filter { $0.1 != 0 }
        guard !fields.isEmpty else { return }
        let name = Data(statisticsName.utf8)
        let commands = fields.map { [Data("HINCRBY".utf8), name, Data($0.0.utf8), Data(String($0.1).utf8)] }
        for reply in try await client.pipeline(commands, key: name) {
            if case .error(let message) = reply { throw RedisError.server(message) }
        }
    }

    /// The Redis side of the tier and the fleet's counters.
    ///
    /// - Throws: ``RedisError`` when Redis cannot answer.
    public func report() async throws -> SharedCacheReport {
        var report = SharedCacheReport()
        report.askedWithKey = isEncrypted
        let infos = try await client.sendToEachPrimary([Data("INFO".utf8)])
        report.primaries = infos.count
        for reply in infos {
            guard case .bulk(let data) = reply, let text = String(data: data, encoding: .utf8) else {
                if case .error(let message) = reply { throw RedisError.server(message) }
                continue
            }
            let info = Self.info(text)
            report.usedMemory += Int(info["used_memory"] ?? "") ?? 0
            report.maximumMemory = max(report.maximumMemory, Int(info["maxmemory"] ?? "") ?? 0)
            report.evictionPolicy = info["maxmemory_policy"] ?? report.evictionPolicy
            report.evictedKeys += Int(info["evicted_keys"] ?? "") ?? 0
        }
        for reply in try await client.sendToEachPrimary([Data("DBSIZE".utf8)]) {
            if case .integer(let count) = reply { report.keys += Int(count) }
        }
        let name = Data(statisticsName.utf8)
        if case .array(let items) = try await client.send([Data("HGETALL".utf8), name], key: name) {
            var values: [String: Int] = [:]
            var index = 0
            while index + 1 < items.count {
                if case .bulk(let field) = items[index], case .bulk(let value) = items[index + 1] {
                    values[String(decoding: field, as: UTF8.self)] = Int(String(decoding: value, as: UTF8.self))
                }
                index += 2
            }
            report.fleet = Self.statistics(from: values)
        }
        return report
    }

    /// The hash's field for each counter (one table for writing and reading them).
    static func fields(of s: SharedCacheStatistics) -> [(String, Int)] {
        SharedCacheStatistics.counters.map { ($0.name, s[keyPath: $0.counter]) }
    }

    static func statistics(from values: [String: Int]) -> SharedCacheStatistics {
        var s = SharedCacheStatistics()
        for field in SharedCacheStatistics.counters { s[keyPath: field.counter] = values[field.name] ?? 0 }
        return s
    }

    /// `INFO`'s `field:value` lines.
    static func info(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = String(line[line.index(after: colon)...])
        }
        return fields
    }
}
