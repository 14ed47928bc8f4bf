import Foundation

/// Timestamp parsing for track files. Hand-written rather than `ISO8601DateFormatter` because
/// that needs one formatter per option set (fractional seconds or not), is slow per call, and
/// is not `Sendable`; readers parse millions of these.
public enum TimeText {
    /// ISO 8601 / RFC 3339 date-time: `YYYY-MM-DDTHH:MM[:SS[.fff…]][Z|±HH[:MM]|±HHMM]`.
    /// `T` may also be a space or `t`; `,` may stand for the decimal point. Without a zone the
    /// time is taken as UTC (GPX 1.1 requires UTC, and track exports that omit the zone are
    /// nearly always UTC). Returns nil for anything else, including impossible dates.
    public static func iso8601(_ text: some StringProtocol) -> Date? {
        iso8601(bytes: Array(text.utf8)[...])
    }

    /// As `iso8601(_:)`, on UTF-8 bytes (CSV fields are parsed without making strings).
    public static func iso8601(bytes text: ArraySlice<UInt8>) -> Date? {
        text.withUnsafeBufferPointer { iso8601(buffer: $0) }
    }

    /// As `iso8601(_:)`, on UTF-8 bytes in place.
    public static func iso8601(buffer text: UnsafeBufferPointer<UInt8>) -> Date? {
        let bytes = TextValues.trimmed(text)
        var i = bytes.startIndex

        func digits(_ n: Int) -> Int? {
            guard i + n <= bytes.endIndex else { return nil }
            var value = 0
            for k in i..<(i + n) {
                let d = Int(bytes[k]) - 0x30
                guard d >= 0, d <= 9 else { return nil }
                value = value * 10 + d
            }
            i += n
            return value
        }
        func take(_ byte: UInt8) -> Bool {
            guard i < bytes.endIndex, bytes[i] == byte else { return false }
            i += 1
            return true
        }

        guard let year = digits(4), take(0x2D), let month = digits(2), take(0x2D), let day = digits(2) else { return nil }
        guard i < bytes.endIndex, bytes[i] == 0x54 || bytes[i] == 0x74 || bytes[i] == 0x20 else { return nil }
        i += 1
        guard let hour = digits(2), take(0x3A), let minute = digits(2) else { return nil }
        var second = 0
        var fraction = 0.0
        if take(0x3A) {
            guard let s = digits(2) else { return nil }
            second = s
            if i < bytes.endIndex, bytes[i] == 0x2E || bytes[i] == 0x2C {
                i += 1
                var scale = 0.1
                let start = i
                while i < bytes.endIndex, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                    fraction += Double(bytes[i] - 0x30) * scale
                    scale /= 10
                    i += 1
                }
                guard i > start else { return nil }
            }
        }
        var offsetSeconds = 0
        if i < bytes.endIndex {
            if bytes[i] == 0x5A || bytes[i] == 0x7A {
                i += 1
            } else if bytes[i] == 0x2B || bytes[i] == 0x2D {
                let sign = bytes[i] == 0x2D ? -1 : 1
                i += 1
                guard let oh = digits(2) else { return nil }
                var om = 0
                if take(0x3A) {
                    guard let m = digits(2) else { return nil }
                    om = m
                } else if i < bytes.endIndex {
                    guard let m = digits(2) else { return nil }
                    om = m
                }
                guard oh <= 23, om <= 59 else { return nil }
                offsetSeconds = sign * (oh * 3600 + om * 60)
            } else {
                return nil
            }
        }
        guard i == bytes.endIndex else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour <= 23, minute <= 59, second <= 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(whole) + fraction)
    }

    /// Unix epoch time as plain decimal text: seconds, or milliseconds when the magnitude is
    /// above 1e11 (1e11 s is the year 5138; 1e11 ms is 1973, so the two ranges never meet).
    public static func epoch(_ text: some StringProtocol) -> Date? {
        guard let value = TextValues.number(text) else { return nil }
        return epoch(value)
    }

    public static func epoch(_ value: Double) -> Date? {
        guard value.isFinite else { return nil }
        return Date(timeIntervalSince1970: abs(value) > 1e11 ? value / 1000 : value)
    }

    /// ISO 8601 first, then epoch seconds / milliseconds.
    public static func parse(_ text: some StringProtocol) -> Date? {
        iso8601(text) ?? epoch(text)
    }

    /// As `parse(_:)`, on UTF-8 bytes without surrounding spaces.
    public static func parse(bytes: ArraySlice<UInt8>) -> Date? {
        bytes.withUnsafeBufferPointer { parse(buffer: $0) }
    }

    /// As `parse(bytes:)`, on UTF-8 bytes in place.
    public static func parse(buffer bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        if let date = iso8601(buffer: bytes) { return date }
        return TextValues.number(buffer: bytes).flatMap { epoch($0) }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension TimeText {
    /// `2023-11-14T22:13:20.123Z`: UTC, milliseconds, proleptic Gregorian calendar (so the year 1
    /// is the year 1, not shifted by the Julian calendar Foundation uses before 1582). Nil for
    /// instants outside the years 0000–9999, which four digits cannot write.
    public static func iso8601Milliseconds(_ date: Date) -> String? {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite else { return nil }
        let milliseconds = (seconds * 1000).rounded()
        guard abs(milliseconds) < 4e14 else { return nil }  // far beyond ±9999 years; Int64-safe
        let total = Int64(milliseconds)
        let (wholeSeconds, millis) = floorDivision(total, 1000)
        let (days, secondOfDay) = floorDivision(wholeSeconds, 86_400)
        let (year, month, day) = civil(fromDays: Int(days))
        guard (0...9999).contains(year) else { return nil }
        let hour = Int(secondOfDay / 3600), minute = Int(secondOfDay % 3600 / 60), second = Int(secondOfDay % 60)
        // Written digit by digit into the string's own 24 bytes: an import writes three per new region.
        return String(unsafeUninitializedCapacity: 24) { text in
            var at = 0
            func put(_ value: Int, _ width: Int) {
                var rest = value
                for k in stride(from: at + width - 1, through: at, by: -1) {
                    text[k] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                at += width
            }
            func put(_ character: Unicode.Scalar) {
                text[at] = UInt8(ascii: character)
                at += 1
            }
            put(year, 4)
            put("-")
            put(month, 2)
            put("-")
            put(day, 2)
            put("T")
            put(hour, 2)
            put(":")
            put(minute, 2)
            put(":")
            put(second, 2)
            put(".")
            put(Int(millis), 3)
            put("Z")
            return at
        }
    }

    private static func floorDivision(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    /// Year, month, day of a day count since 1970-01-01 (H. Hinnant's `civil_from_days`).
    public static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
