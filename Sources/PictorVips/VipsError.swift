import Foundation
internal import CVips
internal import CVipsShim

/// A libvips call that failed, with the text libvips gave at the failure site.
///
/// The public protocols of Pictor throw their own errors (``/PictorCore/ImageDecodingError``,
/// ``/PictorCore/ImageEncodingError``, ``/PictorCore/ImageProcessingError``); ``VipsError`` is what the PictorVips types
/// produce first and what those errors' `message` fields carry.
public struct VipsError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
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

    /// The same text as ``description``, so that `localizedDescription` logs it.
    public var errorDescription: String? { description }

    /// Takes (and clears) libvips' error buffer for a failure of `operation`.
    ///
    /// libvips 8.14 keeps one process-wide error buffer; under concurrent failures a message can
    /// include text from another thread's failure. The buffer is cleared on every read so it
    /// never grows.
    static func last(_ operation: String) -> VipsError {
        defer { cvs_error_clear() }
        var text = ""
        if let copy = cvs_error_buffer_copy() {
            text = String(cString: copy)
            cvs_free(copy)
        }
        text = stableText(text)
        return VipsError(operation: operation, message: text.isEmpty ? noText : text)
    }

    /// The ``message`` of a failure libvips gave no text for.
    static let noText = "libvips gave no message"

    /// Whether libvips gave no text for this failure (the caller may know better words).
    var hasNoText: Bool { message == Self.noText }

    /// libvips' text made the same from run to run and fit for one line: pointer values
    /// (`0x55d1…`) and temporary file names (`/tmp/vips-0-123.v`) replaced, each distinct line
    /// once, joined with `; `, at most 300 characters. Messages end up in one-line CLI output,
    /// logs and reports, where two runs of the same failure must read the same.
    static func stableText(_ raw: String) -> String {
        var seen = Set<String>()
        let lines = raw.split(whereSeparator: \.isNewline)
            .map { line -> String in
                var line = line.trimmingCharacters(in: .whitespaces)
                line = line.replacingOccurrences(of: #"0x[0-9A-Fa-f]+"#, with: "0x…", options: .regularExpression)
                line = line.replacingOccurrences(of: #"/(tmp|var/tmp|dev/shm)/[^\s"']+"#, with: "<temporary file>", options: .regularExpression)
                return line
            }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
        var text = lines.joined(separator: "; ")
        if text.count > 300 { text = String(text.prefix(297)) + "…" }
        return text
    }
}
