import Foundation

/// What the first bytes of a body look like, for messages about data that is not an image:
/// the bytes in hex and a guess at what they are (an HTML error page, JSON, …).
public struct ByteSignature: Sendable, Hashable, CustomStringConvertible {
    /// Up to the first 8 bytes.
    public var leadingBytes: [UInt8]
    /// What the bytes look like: `HTML`, `XML`, `JSON`, `PDF`, `gzip data`, `a ZIP archive`,
    /// `text`, or the start of an image signature cut short (`the first 6 bytes of a PNG
    /// signature: cut short`); `nil` when they look like nothing known.
    public var guess: String?

    /// The signature of `data`.
    public init(_ data: Data) {
        leadingBytes = Array(data.prefix(8))
        guess = Self.guess(Array(data.prefix(512)))
    }

    /// The leading bytes as upper-case hex pairs separated by spaces, e.g. `3C 21 44 4F`.
    public var hex: String { leadingBytes.map { String(format: "%02X", $0) }.joined(separator: " ") }

    /// `3C 21 44 4F 43 54 59 50 (HTML)`, or `… (an unknown format)`; `no bytes` when empty.
    public var description: String {
        leadingBytes.isEmpty ? "no bytes" : "\(hex) (\(guess ?? "an unknown format"))"
    }

    /// Image signatures a body can be cut inside of (a body that holds a whole one is an image).
    private static let imageSignatures: [(name: String, bytes: [UInt8])] = [
        ("PNG", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), ("JPEG", [0xFF, 0xD8, 0xFF]),
        ("GIF", Array("GIF89a".utf8)), ("GIF", Array("GIF87a".utf8)),
    ]

    private static func guess(_ b: [UInt8]) -> String? {
        if b.count >= 2, let cut = imageSignatures.first(where: { b.count < $0.bytes.count && $0.bytes.starts(with: b) }) {
            return "the first \(b.count) bytes of a \(cut.name) signature: cut short"
        }
        if b.starts(with: [0x1F, 0x8B]) { return "gzip data" }
        if b.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return "a ZIP archive" }
        if b.starts(with: Array("%PDF".utf8)) { return "PDF" }
        // Text only from here: no control bytes other than whitespace, and valid UTF-8.
        guard !b.isEmpty, !b.contains(where: { $0 < 0x20 && ![0x09, 0x0A, 0x0D].contains($0) }) else { return nil }
        // Valid UTF-8, but for a character the 512-byte window may cut at its end.
        guard String(validating: b.dropLast(min(3, max(0, b.count - 509))), as: UTF8.self) != nil else { return nil }
        var text = String(decoding: b, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let start = text.drop(while: \.isWhitespace).lowercased()
        if ["<!doctype html", "<html", "<head", "<body"].contains(where: start.hasPrefix) { return "HTML" }
        if start.hasPrefix("<") { return "XML" }
        if start.hasPrefix("{") || start.hasPrefix("[") { return "JSON" }
        return "text"
    }
}
