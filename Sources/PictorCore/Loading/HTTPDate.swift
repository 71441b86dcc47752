import Foundation

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), and the obsolete
/// RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`) forms.
///
/// Parsed by hand: every response carries `Date` and often `Last-Modified` and `Expires`, and a
/// `DateFormatter` costs far more than the download of a small image (ICU builds its formatter
/// and symbol tables per instance). The weekday is not checked (RFC 9110 lets a recipient
/// ignore it); a two-digit RFC 850 year more than 50 years ahead is taken as the past century.
package enum HTTPDate {
    /// Lower-case month names packed three bytes to a number, so a match allocates nothing.
    private static let months: [UInt32] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        .map { $0.utf8.reduce(0) { $0 << 8 | UInt32($1) } }

    /// Parses `string`, or returns `nil`.
    package static func parse(_ string: String) -> Date? {
        var bytes = Array(string.utf8)
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        var scanner = Scanner(bytes: bytes)
        scanner.skipSpaces()
        // The day name, then "," (IMF-fixdate and RFC 850) or a space (asctime).
        guard scanner.skipLetters() > 0 else { return nil }
        if scanner.take(0x2C) {   // ","
            scanner.skipSpaces()
            guard let day = scanner.number(maxDigits: 2) else { return nil }
            let dashed = scanner.take(0x2D)   // "-": RFC 850
            if !dashed { guard scanner.skipSpaces() > 0 else { return nil } }
            guard let month = scanner.month(months) else { return nil }
            if dashed { guard scanner.take(0x2D) else { return nil } } else { guard scanner.skipSpaces() > 0 else { return nil } }
            guard let (rawYear, digits) = scanner.numberWithDigits(maxDigits: 4), digits == 4 || (dashed && digits == 2) else { return nil }
            guard scanner.skipSpaces() > 0, let time = scanner.time() else { return nil }
            scanner.skipSpaces()
            guard scanner.takeWord("gmt") || scanner.takeWord("utc") || scanner.takeWord("ut") else { return nil }
            guard scanner.isAtEnd else { return nil }
            let year = digits == 2 ? twoDigitYear(rawYear) : rawYear
            return date(year: year, month: month, day: day, time: time)
        }
        // asctime: "Nov  6 08:49:37 1994"
        guard scanner.skipSpaces() > 0, let month = scanner.month(months), scanner.skipSpaces() > 0,
              let day = scanner.number(maxDigits: 2), scanner.skipSpaces() > 0, let time = scanner.time(),
              scanner.skipSpaces() > 0, let (year, digits) = scanner.numberWithDigits(maxDigits: 4), digits == 4,
              scanner.isAtEnd else { return nil }
        return date(year: year, month: month, day: day, time: time)
    }

    /// Formats `date` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    package static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
        let monthName = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][month - 1]
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        // IMF-fixdate's year has four digits: 964 is written 0964, or it would not parse back.
        let yearText = (0..<1000).contains(year) ? String(String(year + 10_000).dropFirst()) : "\(year)"
        return "\(weekday), \(two(day)) \(monthName) \(yearText) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    private static func twoDigitYear(_ yy: Int) -> Int {
        // RFC 9110 §5.6.7: a year that appears to be more than 50 years in the future is in the past.
        let current = civil(fromDays: Int(Date().timeIntervalSince1970) / 86_400).year
        var year = current - current % 100 + yy
        if year > current + 50 { year -= 100 }
        return year
    }

    private static func date(year: Int, month: Int, day: Int, time: (Int, Int, Int)) -> Date? {
        guard (1...31).contains(day), time.0 < 24, time.1 < 60, time.2 <= 60 else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + time.0 * 3600 + time.1 * 60 + min(time.2, 59)
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01 (inverse of ``daysFromCivil(year:month:day:)``).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// A cursor over ASCII bytes.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        var isAtEnd: Bool { index == bytes.count }

        @discardableResult
        mutating func skipSpaces() -> Int {
            let start = index
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
            return index - start
        }

        mutating func skipLetters() -> Int {
            let start = index
            while index < bytes.count, Self.isLetter(bytes[index]) { index += 1 }
            return index - start
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func takeWord(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            for i in 0..<count where bytes[index + i] | 0x20 != word.utf8Start[i] { return false }
            guard index + count == bytes.count || !Self.isLetter(bytes[index + count]) else { return false }
            index += count
            return true
        }

        mutating func number(maxDigits: Int) -> Int? { numberWithDigits(maxDigits: maxDigits)?.0 }

        mutating func numberWithDigits(maxDigits: Int) -> (Int, Int)? {
            var value = 0, digits = 0
            while index < bytes.count, digits < maxDigits, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                value = value * 10 + Int(bytes[index] - 0x30)
                digits += 1
                index += 1
            }
            if index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { return nil }
            return digits == 0 ? nil : (value, digits)
        }

        mutating func month(_ names: [UInt32]) -> Int? {
            guard bytes.count - index >= 3 else { return nil }
            let word = (index..<index + 3).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[$1] | 0x20) }
            guard let i = names.firstIndex(of: word) else { return nil }
            index += 3
            return i + 1
        }

        mutating func time() -> (Int, Int, Int)? {
            guard let h = number(maxDigits: 2), take(0x3A), let m = number(maxDigits: 2), take(0x3A), let s = number(maxDigits: 2) else { return nil }
            return (h, m, s)
        }

        static func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
    }
}
