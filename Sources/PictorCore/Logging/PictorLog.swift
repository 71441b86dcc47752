import Foundation

/// Pictor's logging hook: a level threshold and a handler. No swift-log here (it cannot be
/// fetched); adapt by passing a handler that forwards to your logger.
///
/// Messages about an encrypted cache name entries by digest, never by URL; set
/// ``revealsURLs`` to `true` to allow URLs in messages of the pipeline (default `false`).
public struct PictorLog: Sendable {
    /// Severity, lowest first.
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        case debug, info, warning, error

        /// Orders by raw value, lowest first.
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        /// A one-line, human-readable description (used in logs and CLI messages).
        public var description: String { ["debug", "info", "warning", "error"][rawValue] }
    }

    /// Messages below this level are dropped before they are formatted; default `.warning`.
    public var level: Level
    /// Whether messages may contain request URLs; default `false`.
    public var revealsURLs: Bool
    private let handler: @Sendable (Level, String) -> Void

    /// Creates a logger that passes messages at or above `level` to `handler`.
    ///
    /// - Parameters:
    ///   - level: the lowest level passed on; `.warning` by default.
    ///   - revealsURLs: whether the pipeline may put request URLs in messages; `false` by default.
    ///   - handler: receives each message that passes, with its level, on the logging thread.
    public init(level: Level = .warning, revealsURLs: Bool = false, handler: @escaping @Sendable (Level, String) -> Void) {
        self.level = level
        self.revealsURLs = revealsURLs
        self.handler = handler
    }

    /// Drops every message.
    public static let disabled = PictorLog(level: .error) { _, _ in }

    /// Writes `pictor[<level>]: message` lines to standard error, at `.warning` and above.
    public static let standardError = PictorLog(level: .warning) { level, message in
        FileHandle.standardError.write(Data("pictor[\(level)]: \(message)\n".utf8))
    }

    /// Logs `message()` when `level` passes the threshold; the message is built lazily.
    ///
    /// - Parameters:
    ///   - level: how important the message is.
    ///   - message: the text, built only when `level` passes the threshold.
    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard level >= self.level else { return }
        handler(level, message())
    }
}
