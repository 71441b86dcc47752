/// Request text made safe for a one-line reason in a response body or header.
///
/// A refusal names what it refused (the option, the argument, the preset), but the text comes
/// from an attacker-controlled URL: it could carry CR/LF (header injection), HTML, or megabytes.
/// ``quote(_:)`` keeps only `[A-Za-z0-9._~+,=-]` as is, writes every other byte as `%XX`, and
/// cuts the result to ``maxLength`` characters (then ends it with `...`).
public enum SafeText {
    /// The longest quoted text, quotes and `...` excluded (32 characters).
    public static let maxLength = 32

    /// `text` between single quotes, escaped and shortened: `'rs'`, `'%3Cb%3E'`,
    /// `'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'`.
    public static func quote<S: StringProtocol>(_ text: S) -> String {
        var out = "'"
        var written = 0
        for byte in text.utf8 {
            let piece: String
            if isKept(byte) {
                piece = String(UnicodeScalar(byte))
            } else {
                piece = "%" + hexDigit(byte >> 4) + hexDigit(byte & 0xF)
            }
            if written + piece.count > maxLength {
                out += "..."
                break
            }
            out += piece
            written += piece.count
        }
        return out + "'"
    }

    private static func isKept(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"),
             UInt8(ascii: ","), UInt8(ascii: "="), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    private static func hexDigit(_ value: UInt8) -> String {
        String(UnicodeScalar(value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10))
    }
}
