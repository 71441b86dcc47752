import Foundation
import Synchronization

/// `prefetch --report FILE`: one TSV line per URL, written as each image finishes (in the order
/// they finish; with `--name`, in input order), so an interrupted or crashed run keeps what it
/// did.
///
/// Columns, in this order (the README lists them for users):
/// `url`, `status` (`ok` or `failed`), `layer` (`memory`, `disk`, `shared`, `network`; `-` for a
/// failure), `width`, `height` (pixels as delivered), `bytes` (of the original), `milliseconds`
/// (this image's load), `output` (the written file's path as `--json` gives it: the `--out` directory as given joined
/// with the file's name), `output_bytes`, `error`,
/// then `index` (the URL's 1-based position in the input), `revalidated`, `stale_on_arrival`,
/// `coalesced` (`1` or `0`, as the summary counts them) and `finished_ms` (milliseconds from
/// the start of the run to this image's end: the largest is the run's time to its last image).
/// New columns are only ever added at the end, so that `cut -f` and header-keyed readers of an
/// older report keep working.
final class ReportWriter: Sendable {
    static let columns = [
        "url", "status", "layer", "width", "height", "bytes", "milliseconds", "output", "output_bytes", "error",
        "index", "revalidated", "stale_on_arrival", "coalesced", "finished_ms",
    ]
    static let header = columns.joined(separator: "\t") + "\n"
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

    /// Appends `result`'s line; `finishedAfter` is the time in seconds from the start of the run
    /// to the end of this image.
    func append(_ r: ImageJob.Result, finishedAfter: Double) {
        handle.withLock { $0.write(Data(Self.line(r, finishedAfter: finishedAfter).utf8)) }
    }

    func close() {
        handle.withLock { try? $0.close() }
    }

    static func line(_ r: ImageJob.Result, finishedAfter: Double) -> String {
        // Tabs and line breaks become spaces; "\r" too, which Python's csv module takes as the
        // end of a row.
        func clean(_ s: String) -> String {
            String(String.UnicodeScalarView(s.unicodeScalars.map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 }))
        }
        func flag(_ value: Bool) -> String { value ? "1" : "0" }
        let (status, error): (String, String) = switch r.status {
        case .ok: ("ok", "")
        case .failed(let why): ("failed", why)
        case .cancelled: ("cancelled", "")
        }
        let ok = r.status == .ok
        return [Formatting.url(r.url), status, r.layer, "\(r.width)", "\(r.height)", r.bytes.map { "\($0)" } ?? "",
                Formatting.fixed(r.seconds * 1000, digits: 1), r.outputPath ?? "", "\(r.writtenBytes)", error,
                "\(r.index)", flag(ok && r.revalidated), flag(ok && r.staleOnArrival), flag(ok && r.wasShared),
                Formatting.fixed(finishedAfter * 1000, digits: 1)]
            .map(clean).joined(separator: "\t") + "\n"
    }
}
