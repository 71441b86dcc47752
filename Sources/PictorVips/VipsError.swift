import Foundation
internal import CVips

/// A libvips call that failed, with the text libvips gave at the failure site.
///
/// The public protocols of Pictor throw their own errors (``ImageDecodingError``,
/// ``ImageEncodingError``, ``ImageProcessingError``); ``VipsError`` is what the PictorVips types
/// produce first and what those errors' `message` fields carry.
public struct VipsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The libvips operation that failed, for example `jpegsave_buffer`.
    public var operation: String
    /// libvips' error text (its error buffer, trimmed), or a Pictor description when libvips
    /// gave none.
    public var message: String

    /// Creates an error for `operation` with `message`.
    public init(operation: String, message: String) {
        self.operation = operation
        self.message = message
    }

    /// `<operation>: <message>`.
    public var description: String { "\(operation): \(message)" }

    /// Takes (and clears) libvips' error buffer for a failure of `operation`.
    ///
    /// libvips 8.14 keeps one process-wide error buffer; under concurrent failures a message can
    /// include text from another thread's failure. The buffer is cleared on every read so it
    /// never grows.
    static func last(_ operation: String) -> VipsError {
        defer { vips_error_clear() }
        var text = ""
        if let copy = vips_error_buffer_copy() {
            text = String(cString: copy)
            g_free(copy)
        }
        // One line, each distinct libvips line once, at most 300 characters: a message ends up
        // in one-line CLI output and reports.
        var seen = Set<String>()
        let lines = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
        text = lines.joined(separator: "; ")
        if text.count > 300 { text = String(text.prefix(297)) + "…" }
        return VipsError(operation: operation, message: text.isEmpty ? "libvips gave no message" : text)
    }
}
