import Foundation
import Synchronization

/// `prefetch --report FILE`: one TSV line per URL, written as each image finishes (in the order
/// they finish; with `--name`, in input order), so an interrupted or crashed run keeps what it
/// did. The `output` column is the written file's path as `--json` gives it: the `--out`
/// directory as given joined with the file's name.
final class ReportWriter: Sendable {
    static let header = "url\tstatus\tlayer\twidth\theight\tbytes\tmilliseconds\toutput\toutput_bytes\terror\n"
    private let handle: Mutex<FileHandle>

    /// Creates (or truncates) `path` and writes the header.
    /// - Throws: ``CLIError/failure(_:)`` when the file cannot be created.
    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(Self.header.utf8)),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw CLIError.failure("cannot write report '\(path)'")
        }
        handle.seekToEndOfFile()
        self.handle = Mutex(handle)
    }

    /// Appends `result`'s line.
    func append(_ r: ImageJob.Result) {
        handle.withLock { $0.write(Data(Self.line(r).utf8)) }
    }

    func close() {
        handle.withLock { try? $0.close() }
    }

    static func line(_ r: ImageJob.Result) -> String {
        func clean(_ s: String) -> String { s.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ") }
        let (status, error): (String, String) = switch r.status {
        case .ok: ("ok", "")
        case .failed(let why): ("failed", why)
        case .cancelled: ("cancelled", "")
        }
        return [Formatting.url(r.url), status, r.layer, "\(r.width)", "\(r.height)", "\(r.bytes)",
                String(format: "%.1f", r.seconds * 1000), r.outputPath ?? "", "\(r.writtenBytes)", error]
            .map(clean).joined(separator: "\t") + "\n"
    }
}
