import Foundation

/// A long-running helper process spoken to one line at a time (the Pillow worker).
final class LineProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()

    init(_ path: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: path, isDirectory: false)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// Sends one command and returns the one-line answer (without the newline), or `nil` when
    /// the process has gone.
    func ask(_ line: String) -> String? {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let answer = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return answer
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
