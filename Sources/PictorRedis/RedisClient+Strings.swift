import Foundation

extension RedisClient {
    /// ``send(_:key:)`` with text arguments (sent as UTF-8) and key.
    ///
    /// - Throws: as ``send(_:key:)``.
    package func send(_ arguments: [String], key: String? = nil) async throws(RedisError) -> RedisReply {
        try await send(arguments.map { Data($0.utf8) }, key: key.map { Data($0.utf8) })
    }

    /// ``pipeline(_:key:)`` with text arguments (sent as UTF-8) and key.
    ///
    /// - Throws: as ``pipeline(_:key:)``.
    package func pipeline(_ commands: [[String]], key: String) async throws(RedisError) -> [RedisReply] {
        try await pipeline(commands.map { $0.map { Data($0.utf8) } }, key: Data(key.utf8))
    }

    /// ``sendToEachPrimary(_:)`` with text arguments (sent as UTF-8).
    ///
    /// - Throws: as ``sendToEachPrimary(_:)``.
    package func sendToEachPrimary(_ arguments: [String]) async throws(RedisError) -> [RedisReply] {
        try await sendToEachPrimary(arguments.map { Data($0.utf8) })
    }
}
