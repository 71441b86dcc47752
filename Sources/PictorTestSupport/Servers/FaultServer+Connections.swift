import Foundation

extension FaultServer {
    /// How many TCP connections (distinct client ports) carried the recorded requests whose
    /// target starts with `prefix`, and how many requests that was. For keep-alive and
    /// connection-cap tests.
    ///
    /// - Throws: ``TestServerError/requestFailed(_:)`` when the server does not answer.
    public func connections(prefix: String) throws -> (connections: Int, requests: Int) {
        struct Answer: Decodable { var connections: Int; var requests: Int }
        let encoded = prefix.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? prefix
        let (status, body) = try LoopbackHTTP.get(port: port, path: "/_connections?prefix=\(encoded)")
        guard status == 200 else { throw TestServerError.requestFailed("/_connections answered \(status)") }
        let answer = try JSONDecoder().decode(Answer.self, from: body)
        return (answer.connections, answer.requests)
    }

    /// Whether the server can send `br`-encoded bodies (`/encoded?enc=br`): Python's `brotli`
    /// module (Debian `python3-brotli`) is installed. `false` when the server does not answer.
    public var supportsBrotli: Bool {
        struct Answer: Decodable { var brotli: Bool }
        guard let (status, body) = try? LoopbackHTTP.get(port: port, path: "/_features"), status == 200,
              let answer = try? JSONDecoder().decode(Answer.self, from: body) else { return false }
        return answer.brotli
    }
}
