/// The argument grammars of imgproxy's options, each refusing with ``ServiceError`` naming the
/// option as the request spelled it.
enum ArgumentParsing {
    /// Go's `strconv.ParseBool`, which imgproxy uses: `1 t T TRUE true True` and
    /// `0 f F FALSE false False`. imgproxy reads anything else as false (with a log line);
    /// here it is refused, so that a typo cannot silently change the result.
    static func bool(_ argument: Substring, option: Substring) throws(ServiceError) -> Bool {
        switch argument {
        case "1", "t", "T", "TRUE", "true", "True": return true
        case "0", "f", "F", "FALSE", "false", "False": return false
        default: throw .invalidArgument(option, argument, expected: "1, t, true, 0, f or false")
        }
    }

    /// A decimal integer (optional sign, as Go's `strconv.Atoi`) within `range`.
    static func integer(_ argument: Substring, option: Substring, in range: ClosedRange<Int>) throws(ServiceError) -> Int {
        guard argument.utf8.count <= ServiceLimits.maxNumberLength,
              let value = Int(argument), range.contains(value)
        else { throw .invalidArgument(option, argument, expected: "an integer \(range.lowerBound)...\(range.upperBound)") }
        return value
    }

    /// A finite decimal number (`1`, `-0.5`, `.5`, `2e-3`) accepted by `isValid`. Go's
    /// `ParseFloat` would also take `NaN`, `Inf` and hexadecimal floats; no option wants them.
    static func number(
        _ argument: Substring, option: Substring, expected: String, isValid: (Double) -> Bool
    ) throws(ServiceError) -> Double {
        guard argument.utf8.count <= ServiceLimits.maxNumberLength, isDecimal(argument),
              let value = Double(String(argument)), value.isFinite, isValid(value)
        else { throw .invalidArgument(option, argument, expected: expected) }
        return value
    }

    /// `rgb` or `rrggbb` in hex digits of either case (imgproxy's `RGBFromHex`); `rgb` is
    /// `rrggbb` with each digit doubled.
    static func hexColor(_ argument: Substring, option: Substring) throws(ServiceError) -> RGBColor {
        let length = argument.utf8.count
        let d = length == 3 || length == 6 ? argument.utf8.compactMap(hexValue) : []
        guard d.count == length, !d.isEmpty
        else { throw .invalidArgument(option, argument, expected: "a hex colour, rgb or rrggbb") }
        if d.count == 3 { return RGBColor(red: d[0] * 17, green: d[1] * 17, blue: d[2] * 17) }
        return RGBColor(red: d[0] << 4 | d[1], green: d[2] << 4 | d[3], blue: d[4] << 4 | d[5])
    }

    /// One colour channel in decimal, 0...255, digits only (Go's `ParseUint(s, 10, 8)`).
    static func channel(_ argument: Substring, option: Substring) throws(ServiceError) -> UInt8 {
        guard !argument.isEmpty, argument.utf8.count <= 3,
              argument.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let value = UInt8(argument)
        else { throw .invalidArgument(option, argument, expected: "a number 0...255") }
        return value
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `[+-]? (digits ('.' digits?)? | '.' digits) ([eE] [+-]? digits)?`
    private static func isDecimal(_ text: Substring) -> Bool {
        var bytes = text.utf8[...]
        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        func digits() -> Int {
            let count = bytes.prefix(while: isDigit).count
            bytes = bytes.dropFirst(count)
            return count
        }
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}
