import Foundation
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
                out: { FileHandle.standardOutput.write(Data($0.utf8)) },
                err: { FileHandle.standardError.write(Data($0.utf8)) })
    }

    /// Writes `line` and a newline to standard output.
    public func print(_ line: String) { writeOut(line + "\n") }
    /// Writes `text` to standard output as is.
    public func write(_ text: String) { writeOut(text) }
    /// Writes `line` and a newline to standard error.
    public func error(_ line: String) { writeErr(line + "\n") }
    /// Writes `text` to standard error as is.
    public func writeError(_ text: String) { writeErr(text) }
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
