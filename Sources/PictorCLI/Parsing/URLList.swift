import Foundation

/// The text of a URL list (`prefetch`'s input from a file, a pipe or standard input): one URL
/// per line, blank lines and comments skipped. Input from anyone who can write the list: it is
/// fuzzed (`url-list`), the ASCII fast path against the Unicode one.
package enum URLList {
    /// The lines of a URL list that are neither blank nor comments (a comment is a line whose
    /// first non-blank character is `#`), without their byte order marks and the blanks around
    /// them, each with its 1-based line number. LF, CRLF and CR end a line alike, as do the other Unicode
    /// line breaks.
    ///
    /// An all-ASCII list (the usual one) is split on its bytes: going through `Character`s cost
    /// several milliseconds of a 600-line list's start-up, before the first request. Anything
    /// else is decoded as lossy UTF-8 (a Latin-1 comment does not make the whole list
    /// unreadable) and split on Swift's `isNewline`.
    package static func lines(_ bytes: Data) -> [(number: Int, line: String)] {
        var lines: [(number: Int, line: String)] = []
        let isASCII = bytes.withUnsafeBytes { raw in
            raw.withMemoryRebound(to: UInt8.self) { bytes -> Bool in
                guard bytes.allSatisfy({ $0 < 0x80 }) else { return false }
                var number = 1, start = 0, index = 0
                func take(_ end: Int) {
                    let line = asciiLine(UnsafeBufferPointer(rebasing: bytes[start..<end]))
                    if !line.isEmpty { lines.append((number, line)) }
                }
                while index < bytes.count {
                    let byte = bytes[index]
                    // LF, VT, FF and CR: the ASCII characters `isNewline` accepts.
                    guard (0x0A...0x0D).contains(byte) else { index += 1; continue }
                    take(index)
                    index += byte == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1
                    start = index
                    number += 1
                }
                take(bytes.count)
                return true
            }
        }
        if isASCII { return lines }
        let text = String(decoding: bytes, as: UTF8.self)
        // `isNewline` splits LF, CRLF (one Character in Swift) and CR alike.
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            // A byte order mark (U+FEFF) starts lists saved by some editors, and each of several
            // such lists joined: it is not part of a URL.
            let line = trimmingBlanks(raw.drop { $0 == "\u{FEFF}" })
            if !line.isEmpty, !isComment(line) { lines.append((number + 1, line)) }
        }
        return lines
    }

    /// One ASCII list line without the blanks around it (tab to carriage return and space: the
    /// ASCII characters `isWhitespace` accepts); empty for a comment, a line whose first
    /// non-blank character is `#`.
    private static func asciiLine(_ line: UnsafeBufferPointer<UInt8>) -> String {
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var start = 0, end = line.count
        while start < end, isBlank(line[start]) { start += 1 }
        if start < end, line[start] == UInt8(ascii: "#") { return "" }
        while end > start, isBlank(line[end - 1]) { end -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
    }

    /// `line` without the blanks (spaces, tabs and other Unicode white space) at either end,
    /// in Swift's own string model (Foundation's `trimmingCharacters` bridges every line through
    /// NSString: a measurable share of a 600-line list's start-up).
    package static func trimmingBlanks(_ line: Substring) -> String {
        guard let first = line.firstIndex(where: { !$0.isWhitespace }),
              let last = line.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(line[first...last])
    }

    /// Whether a list line, without its blanks, is a comment: its first character is `#`. A `#`
    /// anywhere else is part of the URL (its fragment) or of the path (`/data/dir #1/a.png`).
    package static func isComment(_ line: String) -> Bool { line.first == "#" }
}
