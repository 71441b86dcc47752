/// An opaque sRGB colour, 8 bits a channel: the `background` that alpha is flattened onto
/// (for a JPEG result).
public struct RGBColor: Sendable, Hashable {
    /// Red, 0...255.
    public var red: UInt8
    /// Green, 0...255.
    public var green: UInt8
    /// Blue, 0...255.
    public var blue: UInt8

    /// A colour from its three channels.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Six lowercase hex digits, `rrggbb` (no `#`), e.g. `ff8000`.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        for channel in [red, green, blue] {
            bytes.append(digits[Int(channel >> 4)])
            bytes.append(digits[Int(channel & 0xF)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
