import Foundation
import PictorServer
import Synchronization

/// Where a command writes: standard output and error, injectable for in-process tests.
public struct Console: Sendable {
    private let writeOut: @Sendable (String) -> Void
    private let writeErr: @Sendable (String) -> Void
    /// Whether standard output is a terminal.
    public let isTerminal: Bool
    /// Whether standard error is a terminal (the progress bar then redraws in place).
    public let isErrorTerminal: Bool

    /// A console over arbitrary sinks.
    public init(
        isTerminal: Bool = false, isErrorTerminal: Bool = false,
        out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void
    ) {
        self.isTerminal = isTerminal
        self.isErrorTerminal = isErrorTerminal
        self.writeOut = out
        self.writeErr = err
    }

    /// The process's standard output and error.
    public static var standard: Console {
        Console(isTerminal: isatty(STDOUT_FILENO) == 1, isErrorTerminal: isatty(STDERR_FILENO) == 1,
                out: { writeAll($0, to: STDOUT_FILENO) },
                err: { writeAll($0, to: STDERR_FILENO) })
    }

    /// `text` written whole to `descriptor`, straight from the string's bytes: `serve` writes
    /// a line per request, and a `Data` copy and `FileHandle` call cost more than the line.
    /// A descriptor that fails (closed, a full disk) drops the rest of the text, as
    /// `FileHandle` did; logging never stops the caller.
    private static func writeAll(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// Writes `line` and a newline to standard output, control characters escaped (see
    /// ``escapingControlCharacters(_:)``).
    public func print(_ line: String) { writeOut(Self.escapingControlCharacters(line) + "\n") }
    /// Writes `text` to standard output as is.
    public func write(_ text: String) { writeOut(text) }
    /// Writes `line` and a newline to standard error, control characters escaped (see
    /// ``escapingControlCharacters(_:)``).
    public func error(_ line: String) { writeErr(Self.escapingControlCharacters(line) + "\n") }
    /// Writes `text` to standard error as is.
    public func writeError(_ text: String) { writeErr(text) }

    /// `text` with every control character other than newline and tab written as `\u{1B}`:
    /// lines name URLs, list lines and servers' words, and a terminal must not run an escape
    /// sequence that came in one (colours, a new window title, a cleared screen).
    public static func escapingControlCharacters(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            let value = scalar.value
            return (value < 0x20 && value != 0x0A && value != 0x09) || (0x7F...0x9F).contains(value)
        }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}

extension Console {
    /// This console with each line written to standard error turned into a JSON object,
    /// `{"time":"2026-12-05T01:35:01.123Z","message":"…"}` (``/PictorServer/AccessLogFormat/messageLine(_:time:)``),
    /// for `serve --log-format json`; standard output is unchanged.
    public func withJSONErrorLines() -> Console {
        let base = self
        return Console(
            isTerminal: isTerminal, isErrorTerminal: false, out: { base.write($0) },
            err: { text in
                var out = ""
                for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
                    out += AccessLogFormat.json.messageLine(String(line)) + "\n"
                }
                base.writeError(out)
            })
    }
}

/// A console that records what was written, for tests.
public final class RecordingConsole: Sendable {
    private let state = Mutex((out: "", err: ""))

    /// Creates an empty recorder.
    public init() {}

    /// A console writing into this recorder.
    public var console: Console {
        Console(out: { text in self.state.withLock { $0.out += text } },
                err: { text in self.state.withLock { $0.err += text } })
    }

    /// Everything written to standard output.
    public var output: String { state.withLock { $0.out } }
    /// Everything written to standard error.
    public var errors: String { state.withLock { $0.err } }
}
